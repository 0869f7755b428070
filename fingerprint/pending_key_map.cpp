#include "fingerprint/pending_key_map.h"

#include <filesystem>
#include <string_view>

#include "fingerprint/key_map_file.h"
#include "simdex/error.h"

namespace simdex {

PendingKeyMap PendingKeyMap::written(const std::string& path, const std::function<void(const Sink&)>& write) {
  PendingKeyMap p;
  p.file_ = std::make_unique<writer::AtomicFile>(path);
  write([&](std::string_view bytes) { p.file_->write(bytes.data(), bytes.size()); });
  p.file_->sync();  // durable now: commit() after the output is then a rename, a short window
  return p;
}

PendingKeyMap PendingKeyMap::of(KeyMapBuilder& keys, const std::string& path) {
  return written(path, [&](const Sink& sink) { keys.write_to(sink); });
}

PendingKeyMap PendingKeyMap::copy_of(const std::string& from, const std::string& path) {
  KeyMapFile file(from);
  PendingKeyMap p;
  p.file_ = std::make_unique<writer::AtomicFile>(path);
  // In chunks, each line checked as KeyMap::read checks it (a malformed map is refused, not
  // carried along), without holding the map: one of 100M keys is gigabytes.
  const auto check_only = [](std::uint64_t, std::string_view) {};
  for (std::string_view bytes; !(bytes = file.read(check_only)).empty();)
    p.file_->write(bytes.data(), bytes.size());
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
