// `--keys [FILE]`: commands that print ids print the documents' keys instead (spec/KEYS.md), from
// the key map FILE or, by default, the one beside the index (INDEX.keys.tsv, or the INDEX.paths.tsv
// of simdex 0.1). An id without a key prints as the id.
#pragma once

#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "cli/output.h"
#include "fingerprint/pending_key_map.h"
#include "simdex/keys.h"

namespace simdex::cli {

struct KeysArg {
  std::string file;
  CLI::Option* option = nullptr;
};

void add_keys_option(CLI::App& cmd, KeysArg& arg);

// Whether --keys was given.
bool keys_wanted(const KeysArg& arg);

// The key map beside an index or set: INDEX.keys.tsv, else the one beside the file a symbolic link
// INDEX names, else simdex 0.1's INDEX.paths.tsv; nothing when there is none.
std::optional<std::string> key_map_beside(const std::string& index);
// The key map --keys names: FILE, or by default the one beside the index (a set's through a link
// to its manifest, or simdex 0.1's INDEX.paths.tsv). Error(io) when there is none.
std::string key_map_file(const KeysArg& arg, const std::string& index);
// The key map to print with, or nothing when --keys was not given. Throws Error(io) when the map is
// missing, Error(input) when it is malformed.
std::optional<MappedKeyMap> open_keys(const KeysArg& arg, const std::string& index);

// Appends `id` as a list element: its key escaped (',' too) or the decimal id; in JSON, the key as a
// JSON string or the id as a number.
void append_key(fmt::memory_buffer& b, const MappedKeyMap& keys, std::uint64_t id, bool json);

// A query's own id (QUERY_ID of `query --text` and `join`): its `key` when there is one (a document's
// key, given with --keys: escaped as in a key map, or a JSON string), else the decimal id.
void append_query_id(fmt::memory_buffer& b, std::uint64_t id, std::optional<std::string_view> key, bool json);

// `ids` comma-separated, as keys with `keys` (append_key), else as Output::append_list writes them.
template <typename List>
void append_ids(Output& out, const List& ids, const MappedKeyMap* keys, bool json) {
  if (!keys) return out.append_list(ids);
  bool first = true;
  for (std::uint64_t id : ids) {
    if (!first) out.buffer().push_back(',');
    append_key(out.buffer(), *keys, id, json);
    first = false;
    out.maybe_flush();
  }
}

// `build` from fingerprint lines: the key map beside INPUT (written by `fingerprint`), checked, to be
// copied beside OUTPUT; without one, a map left beside OUTPUT by an earlier build is to be removed.
PendingKeyMap carried_key_map(const std::string& input, const std::string& output);

// A key map file, and what names it in the message of two keys for one id (a malformed line is
// named by the path).
struct NamedKeyMap {
  std::string path;
  std::string name;
};
// Called for each id of a union of key maps, before its line is written: its key, and the maps
// holding it (their positions in the list, ascending). It may throw to stop the union.
using KeyMapHolders =
    std::function<void(std::uint64_t id, std::string_view key, std::span<const std::size_t> maps)>;
// The union of the key map files `maps` (each id once), handed to `sink` as a key map's bytes, in
// order. Error(input) when an id has another key in two of them (two documents with one id,
// spec/KEYS.md §1.1), naming both maps and ending in `unchanged` (what the error leaves as it was);
// Error(input) as KeyMap::read for a malformed map. Reads each map once, a chunk at a time (a merge
// of their sorted entries: memory for a chunk of each, whatever their sizes).
void unite_key_maps(const std::vector<NamedKeyMap>& maps, const PendingKeyMap::Sink& sink,
                    const std::string& unchanged, const KeyMapHolders& holders = {});

}  // namespace simdex::cli
