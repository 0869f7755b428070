#include "fingerprint/key_map_file.h"

#include <unistd.h>

#include <cerrno>

#include "format/system_error.h"
#include "io/fd_io.h"
#include "simdex/error.h"

namespace simdex {

KeyMapFile::KeyMapFile(const std::string& path)
    : fd_(open_key_map_file(path)), path_(path), lines_(path), chunk_(std::size_t{1} << 20, '\0') {}

KeyMapFile::~KeyMapFile() { ::close(fd_); }

std::string_view KeyMapFile::read(const std::function<void(std::uint64_t id, std::string_view key)>& each) {
  if (done_) return {};
  const ssize_t got = io::read_some(fd_, chunk_.data(), chunk_.size());
  if (got < 0) throw system_error("read error on key map", path_);
  if (got == 0) {
    done_ = true;
    lines_.finish();
    return {};
  }
  const std::string_view bytes(chunk_.data(), static_cast<std::size_t>(got));
  lines_.feed(bytes, each);
  return bytes;
}

KeyMapCursor::KeyMapCursor(const std::string& path) : file_(path) { fill(); }

void KeyMapCursor::next() {
  if (++at_ == entries_.size()) fill();
}

void KeyMapCursor::fill() {
  entries_.clear();
  keys_.clear();
  at_ = 0;
  auto keep = [&](std::uint64_t id, std::string_view key) {
    entries_.push_back({id, keys_.size(), key.size()});
    keys_.append(key);
  };
  while (entries_.empty() && !file_.read(keep).empty()) {
  }
}

}  // namespace simdex
