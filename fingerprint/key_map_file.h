// A key map file (spec/KEYS.md) read a chunk at a time, never whole: a set's map of a billion keys is
// tens of gigabytes, and an `add` of a day's documents or a merge of maps needs each entry once, in
// order. Each line is checked as KeyMap::read checks it.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "fingerprint/key_map_lines.h"

namespace simdex {

class KeyMapFile {
 public:
  // Error(io) when `path` cannot be opened or is not a regular file (open_key_map_file).
  explicit KeyMapFile(const std::string& path);
  ~KeyMapFile();
  KeyMapFile(const KeyMapFile&) = delete;
  KeyMapFile& operator=(const KeyMapFile&) = delete;

  // The next chunk of the file's bytes, each entry whose line ends in it handed to each(id, key)
  // (the key valid during the call); empty at the end, once the last line is known to end in LF.
  // Throws Error(input) naming the line for what the spec tells a reader to reject, Error(io) for a
  // read error.
  std::string_view read(const std::function<void(std::uint64_t id, std::string_view key)>& each);

 private:
  int fd_;
  std::string path_;
  KeyMapLines lines_;
  std::string chunk_;
  bool done_ = false;
};

// The entries of a key map file one at a time, in ascending id order: a chunk's entries at once.
class KeyMapCursor {
 public:
  explicit KeyMapCursor(const std::string& path);
  bool valid() const { return at_ < entries_.size(); }  // false past the last entry
  std::uint64_t id() const { return entries_[at_].id; }
  // Valid until the next call of next().
  std::string_view key() const {
    return std::string_view(keys_).substr(entries_[at_].key, entries_[at_].size);
  }
  void next();

 private:
  void fill();  // the next chunk's entries, until one comes or the file ends

  struct Entry {
    std::uint64_t id;
    std::size_t key, size;  // in keys_
  };
  KeyMapFile file_;
  std::vector<Entry> entries_;
  std::string keys_;
  std::size_t at_ = 0;
};

}  // namespace simdex
