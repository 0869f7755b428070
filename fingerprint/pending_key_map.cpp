#include "fingerprint/pending_key_map.h"

#include <filesystem>
#include <fstream>
#include <vector>

#include "simdex/error.h"

namespace simdex {

PendingKeyMap PendingKeyMap::of(KeyMapBuilder& keys, const std::string& path) {
  PendingKeyMap p;
  p.file_ = std::make_unique<writer::AtomicFile>(path);
  keys.write_to([&](std::string_view bytes) { p.file_->write(bytes.data(), bytes.size()); });
  p.file_->sync();  // durable now: commit() after the output is then a rename, a short window
  return p;
}

PendingKeyMap PendingKeyMap::copy_of(const std::string& from, const std::string& path) {
  KeyMap::read(from);  // a malformed map is refused, not carried along
  std::ifstream in(from, std::ios::binary);
  PendingKeyMap p;
  p.file_ = std::make_unique<writer::AtomicFile>(path);
  std::vector<char> chunk(std::size_t{1} << 20);  // in chunks: a map of 100M keys is gigabytes
  while (in) {
    in.read(chunk.data(), static_cast<std::streamsize>(chunk.size()));
    p.file_->write(chunk.data(), static_cast<std::size_t>(in.gcount()));
  }
  if (!in.eof()) throw Error(errc::io, "read error on '" + from + "'");
  p.file_->sync();
  return p;
}

PendingKeyMap PendingKeyMap::removal(const std::string& path) {
  PendingKeyMap p;
  p.remove_ = path;
  return p;
}

void PendingKeyMap::commit() {
  if (file_) file_->publish();
  file_.reset();
  if (!remove_.empty()) {
    std::error_code ec;  // absent already: nothing to do
    std::filesystem::remove(remove_, ec);
    remove_.clear();
  }
}

}  // namespace simdex
