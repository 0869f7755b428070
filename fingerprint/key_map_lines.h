// The lines of a key map file (spec/KEYS.md), checked one at a time: KeyMap::parse reads a whole
// map through it, and PendingKeyMap::copy_of checks a map of any size as it copies it, in chunks
// (a map of 100M keys is gigabytes).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace simdex {

class KeyMapLines {
 public:
  explicit KeyMapLines(std::string name) : name_(std::move(name)) {}
  // The next line, without its '\n'. Returns false for the header line (`#simdex-keys 1`, first);
  // else sets `id` and `key` (valid until the next call). A first line without the header is
  // simdex 0.1's paths.tsv: no escaping, read as it is. Throws Error(errc::input) naming the line.
  bool next(std::string_view line, std::uint64_t& id, std::string_view& key);
  // At the end of the bytes: throws when the last line had no newline (`rest`: the bytes after
  // the last '\n').
  void finish(std::string_view rest) const;

 private:
  std::string name_;
  std::uint64_t line_no_ = 0;
  std::optional<bool> legacy_;  // decided by the first line
  std::optional<std::uint64_t> last_id_;
  std::string unescaped_;
};

}  // namespace simdex
