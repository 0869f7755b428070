#include "cli/keys_option.h"

#include <filesystem>
#include <functional>
#include <memory>
#include <queue>
#include <vector>

#include "cli/output.h"
#include "fingerprint/key_map_file.h"
#include "fingerprint/key_map_lines.h"
#include "set/set_files.h"
#include "simdex/error.h"

namespace simdex::cli {

void add_keys_option(CLI::App& cmd, KeysArg& arg) {
  // A flag that takes a value only as --keys=FILE: a bare --keys never swallows the next argument.
  arg.option = cmd.add_flag("--keys", arg.file,
                            "Print keys instead of ids, from the key map beside the index (INDEX.keys.tsv; "
                            "spec/KEYS.md) or, with --keys=FILE, from FILE");
}

bool keys_wanted(const KeysArg& arg) { return arg.option && arg.option->count() > 0; }

std::optional<std::string> key_map_beside(const std::string& index) {
  std::error_code ec;
  std::string file = key_map_path(index);
  if (std::filesystem::exists(file, ec)) return file;
  // An index or set reached through a symbolic link (a "current" link): the map beside the file it
  // names, where there is none beside the link.
  if (const std::string target = set::manifest_file(index);
      target != index && std::filesystem::exists(key_map_path(target), ec))
    return key_map_path(target);
  if (std::filesystem::exists(index + ".paths.tsv", ec)) return index + ".paths.tsv";  // simdex 0.1
  return std::nullopt;
}

std::string key_map_file(const KeysArg& arg, const std::string& index) {
  if (arg.file != "true") return arg.file;  // "true": the value CLI11 gives a bare flag (--keys=./true)
  if (auto file = key_map_beside(index)) return *file;
  throw Error(errc::io, "--keys: no key map " + key_map_path(index) +
                            " beside the index (an index of integer ids has none; give --keys=FILE)");
}

std::optional<MappedKeyMap> open_keys(const KeysArg& arg, const std::string& index) {
  if (!keys_wanted(arg)) return std::nullopt;
  return MappedKeyMap(key_map_file(arg, index));
}

PendingKeyMap carried_key_map(const std::string& input, const std::string& output) {
  const std::string from = key_map_path(input), to = key_map_path(output);
  std::error_code ec;
  if (input == "-" || !std::filesystem::exists(from, ec)) return PendingKeyMap::removal(to);
  return PendingKeyMap::copy_of(from, to);
}

void unite_key_maps(const std::vector<NamedKeyMap>& maps, const PendingKeyMap::Sink& sink,
                    const std::string& unchanged, const KeyMapHolders& holders) {
  std::vector<std::unique_ptr<KeyMapCursor>> cursors;
  for (const NamedKeyMap& m : maps) cursors.push_back(std::make_unique<KeyMapCursor>(m.path));
  // A k-way merge: the maps' next entries in a heap by (id, map), so that equal ids meet in a row.
  struct Next {
    std::uint64_t id;
    std::size_t map;
    bool operator>(const Next& o) const { return id != o.id ? id > o.id : map > o.map; }
  };
  std::priority_queue<Next, std::vector<Next>, std::greater<>> heap;
  for (std::size_t m = 0; m < maps.size(); ++m)
    if (cursors[m]->valid()) heap.push({cursors[m]->id(), m});
  std::string buffer(kKeyMapHeader);
  std::uint64_t id = 0;
  std::string key;              // id's key, copied: its cursor moves on before the next map's comes
  std::vector<std::size_t> in;  // the maps holding id
  auto write = [&] {
    if (holders) holders(id, key, in);
    append_key_map_line(buffer, id, key);
    if (buffer.size() >= (1 << 16)) {
      sink(buffer);
      buffer.clear();
    }
  };
  while (!heap.empty()) {
    const Next n = heap.top();
    heap.pop();
    KeyMapCursor& cursor = *cursors[n.map];
    if (!in.empty() && n.id == id) {
      if (cursor.key() != key)
        throw Error(errc::input, "id " + std::to_string(id) + " is the key '" + escape_key(key) + "' in " +
                                     maps[in.front()].name + " and the key '" + escape_key(cursor.key()) +
                                     "' in " + maps[n.map].name +
                                     ": two documents with one id (spec/KEYS.md 1.1); " + unchanged);
      in.push_back(n.map);
    } else {
      if (!in.empty()) write();
      id = n.id;
      key.assign(cursor.key());
      in.assign(1, n.map);
    }
    cursor.next();
    if (cursor.valid()) heap.push({cursor.id(), n.map});
  }
  if (!in.empty()) write();
  sink(buffer);
}

namespace {
// `key`, or the decimal id when there is none.
void append_key_or_id(fmt::memory_buffer& b, std::optional<std::string_view> key, std::uint64_t id, bool json,
                      bool list_separator) {
  if (!key) {
    append_decimal(b, id);
  } else if (json) {
    append_json_string(b, *key);
  } else {
    const std::string escaped = escape_key(*key, list_separator);
    b.append(escaped.data(), escaped.data() + escaped.size());
  }
}
}  // namespace

void append_key(fmt::memory_buffer& b, const MappedKeyMap& keys, std::uint64_t id, bool json) {
  thread_local std::string scratch;  // (a key is copied out of the mapped map: no allocation a key)
  append_key_or_id(b, keys.find(id, scratch), id, json, true);
}

void append_query_id(fmt::memory_buffer& b, std::uint64_t id, std::optional<std::string_view> key,
                     bool json) {
  append_key_or_id(b, key, id, json, false);
}

}  // namespace simdex::cli
