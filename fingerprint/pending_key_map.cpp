#include "fingerprint/pending_key_map.h"

#include <filesystem>
#include <fstream>
#include <string_view>

#include "fingerprint/key_map_lines.h"
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
  std::ifstream in(from, std::ios::binary);
  if (!in) throw Error(errc::io, "cannot open key map '" + from + "'");
  PendingKeyMap p;
  p.file_ = std::make_unique<writer::AtomicFile>(path);
  // In chunks, each line checked as KeyMap::read checks it (a malformed map is refused, not
  // carried along), without holding the map: one of 100M keys is gigabytes.
  KeyMapLines lines(from);
  std::string chunk(std::size_t{1} << 20, '\0');
  while (in) {
    in.read(chunk.data(), static_cast<std::streamsize>(chunk.size()));
    const std::string_view got(chunk.data(), static_cast<std::size_t>(in.gcount()));
    p.file_->write(got.data(), got.size());
    lines.feed(got, [](std::uint64_t, std::string_view) {});
  }
  if (!in.eof()) throw Error(errc::io, "read error on '" + from + "'");
  lines.finish();
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
