#include "cli/keys_option.h"

#include <filesystem>

#include "cli/output.h"
#include "simdex/error.h"
#include "writer/atomic_file.h"

namespace simdex::cli {

void add_keys_option(CLI::App& cmd, KeysArg& arg) {
  // A flag that takes a value only as --keys=FILE: a bare --keys never swallows the next argument.
  arg.option = cmd.add_flag("--keys", arg.file,
                            "Print keys instead of ids, from the key map beside the index (INDEX.keys.tsv; "
                            "spec/KEYS.md) or, with --keys=FILE, from FILE");
}

bool keys_wanted(const KeysArg& arg) { return arg.option && arg.option->count() > 0; }

std::optional<KeyMap> open_keys(const KeysArg& arg, const std::string& index) {
  if (!keys_wanted(arg)) return std::nullopt;
  std::string file = arg.file;
  if (file == "true") {  // the value CLI11 gives a bare flag (a map named true: --keys=./true)
    file = key_map_path(index);
    std::error_code ec;
    if (!std::filesystem::exists(file, ec) && std::filesystem::exists(index + ".paths.tsv", ec))
      file = index + ".paths.tsv";  // written by simdex 0.1
    if (!std::filesystem::exists(file, ec))
      throw Error(errc::io, "--keys: no key map " + file +
                                " beside the index (an index of integer ids has none; give --keys=FILE)");
  }
  return KeyMap::read(file);
}

PendingKeyMap carried_key_map(const std::string& input, const std::string& output) {
  const std::string from = key_map_path(input), to = key_map_path(output);
  std::error_code ec;
  if (input == "-" || !std::filesystem::exists(from, ec)) return PendingKeyMap::removal(to);
  return PendingKeyMap::copy_of(from, to);
}

void extend_key_map(const std::string& set_map, const std::string& added, const std::string& added_name) {
  const KeyMap more = KeyMap::read(added);
  std::error_code ec;
  extend_key_map(set_map, std::filesystem::exists(set_map, ec) ? KeyMap::read(set_map) : KeyMap(), more,
                 added_name);
}

void extend_key_map(const std::string& set_map, const KeyMap& old, const KeyMap& more,
                    const std::string& added_name) {
  KeyMapBuilder merged;
  std::size_t i = 0, j = 0;
  while (i < old.size() || j < more.size()) {
    const bool from_old = j == more.size() || (i < old.size() && old.id_at(i) <= more.id_at(j));
    const uint64_t id = from_old ? old.id_at(i) : more.id_at(j);
    const std::string_view key = from_old ? old.key_at(i) : more.key_at(j);
    if (from_old && j < more.size() && more.id_at(j) == id) {
      if (more.key_at(j) != key)
        throw Error(errc::input, "id " + std::to_string(id) + " is the key '" + escape_key(key) + "' in " +
                                     set_map + " and the key '" + escape_key(more.key_at(j)) + "' in " +
                                     added_name +
                                     ": two documents with one id (spec/KEYS.md 1.1); the set is unchanged");
      ++j;
    }
    merged.add(id, IdKind::key, key, 0);
    ++(from_old ? i : j);
  }
  merged.write(set_map);
}

namespace {
// `key`, or the decimal id when there is none.
void append_key_or_id(fmt::memory_buffer& b, std::optional<std::string_view> key, std::uint64_t id, bool json,
                      bool list_separator) {
  if (!key) {
    fmt::format_to(std::back_inserter(b), "{}", id);
  } else if (json) {
    append_json_string(b, *key);
  } else {
    const std::string escaped = escape_key(*key, list_separator);
    b.append(escaped.data(), escaped.data() + escaped.size());
  }
}
}  // namespace

void append_key(fmt::memory_buffer& b, const KeyMap& keys, std::uint64_t id, bool json) {
  append_key_or_id(b, keys.find(id), id, json, true);
}

void append_query_id(fmt::memory_buffer& b, std::uint64_t id, std::optional<std::string_view> key,
                     bool json) {
  append_key_or_id(b, key, id, json, false);
}

}  // namespace simdex::cli
