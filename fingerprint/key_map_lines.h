// The lines of a key map file (spec/KEYS.md). Read: checked one at a time: KeyMap::parse reads a whole
// map through it, and PendingKeyMap::copy_of checks a map of any size as it copies it, in chunks
// (a map of 100M keys is gigabytes).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace simdex {

// The first line of a key map, with its LF.
inline constexpr std::string_view kKeyMapHeader = "#simdex-keys 1\n";
// What a key map's first line (without its LF) is: the header, the first entry of a simdex 0.1
// listing (no header; keys as they are, no escaping), or a '#' line that is not the header (not a
// key map: kNotAKeyMap says so).
enum class KeyMapFirstLine { header, legacy_entry, not_a_key_map };
KeyMapFirstLine key_map_first_line(std::string_view line);
inline constexpr const char* kNotAKeyMap = "not a simdex key map: the first line must be '#simdex-keys 1'";
// An empty file is neither a key map (it has its first line) nor a listing (it has an entry): a
// map truncated to nothing, which read as a map without keys would turn every key into an id.
inline constexpr const char* kEmptyKeyMap =
    "an empty file is not a key map (its first line '#simdex-keys 1' is missing: a truncated file?)";
// Opens a key map file to read (a descriptor the caller closes). Error(io) naming it when it cannot
// be opened or is not a regular file: a FIFO would block and a device (/dev/zero) never end.
int open_key_map_file(const std::string& path);
// Parses an entry's line, without its LF: sets `id` and `key` (a view of `line`, or of `unescaped`
// when the key has escapes). `legacy`: a listing of simdex 0.1, keys as they are. Returns what is
// wrong with the line by spec/KEYS.md, or null. The ids' order is the caller's to check.
const char* parse_key_map_entry(std::string_view line, bool legacy, std::uint64_t& id, std::string_view& key,
                                std::string& unescaped);
// The first half of that: the id, and `key` as it is written (escaped).
const char* parse_key_map_id(std::string_view line, std::uint64_t& id, std::string_view& key);
// The second: `key` as written -> the key (a view of `unescaped` when it has escapes).
const char* unescape_key_map_key(std::string_view& key, std::string& unescaped);
// Appends the entry's line (ID, TAB, the key escaped, LF) to `out`.
void append_key_map_line(std::string& out, std::uint64_t id, std::string_view key);

class KeyMapLines {
 public:
  explicit KeyMapLines(std::string name) : name_(std::move(name)) {}
  // The next stretch of the file's bytes, line by line: each(id, key) for every entry (the key
  // valid during the call). A line cut at the stretch's end waits for the next stretch. Throws
  // Error(errc::input) naming the line.
  template <class Each>
  void feed(std::string_view bytes, Each&& each) {
    std::uint64_t id = 0;
    std::string_view key;
    for (auto eol = bytes.find('\n'); eol != std::string_view::npos; eol = bytes.find('\n')) {
      std::string_view line = bytes.substr(0, eol);
      if (!partial_.empty()) line = partial_.append(line);
      if (next(line, id, key)) each(id, key);
      partial_.clear();
      bytes.remove_prefix(eol + 1);
    }
    partial_.append(bytes);
  }
  // At the end of the file: throws when its last line had no newline.
  void finish() const;
  // One line, without its '\n' (what feed() does for each; for a reader that finds the lines
  // itself). Returns false for the header line (`#simdex-keys 1`, first); else sets `id` and `key`
  // (valid until the next call). A first line without the header is simdex 0.1's paths.tsv: no
  // escaping, read as it is.
  bool next(std::string_view line, std::uint64_t& id, std::string_view& key);

 private:
  std::string name_;
  std::uint64_t line_no_ = 0;
  std::optional<bool> legacy_;  // decided by the first line
  std::optional<std::uint64_t> last_id_;
  std::string unescaped_;
  std::string partial_;  // a line cut at the end of the last stretch fed
};

}  // namespace simdex
