// Publishes a file atomically (spec/FORMAT.md §11, "Atomic publishing"): everything is written to a temporary
// file beside the target, fsynced, renamed over the target, and the directory is fsynced. Readers
// of the old file keep their mapping; nobody ever sees a partial file at the target path.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace simdex::writer {

class AtomicFile {
 public:
  explicit AtomicFile(std::string target);  // creates the temporary file; throws Error(io)
  ~AtomicFile();                             // unpublished: the temporary file is removed
  AtomicFile(const AtomicFile&) = delete;
  AtomicFile& operator=(const AtomicFile&) = delete;

  void write(const void* data, std::size_t size);  // sequential, buffered
  void write_at(uint64_t offset, const void* data, std::size_t size);  // for the header, at the end
  uint64_t position() const { return position_; }
  // Flush, fsync, rename over the target, fsync the directory. Then removes temporary files that
  // builds of the same target killed earlier left behind (their process is gone).
  void publish();

  const std::string& temp_path() const { return temp_; }

 private:
  void flush();
  void pwrite_all(uint64_t offset, const void* data, std::size_t size);
  std::string target_, temp_;
  int fd_ = -1;
  std::vector<uint8_t> buffer_;
  uint64_t position_ = 0;  // == flushed_ + buffer_.size()
  uint64_t flushed_ = 0;
  bool published_ = false;
};

// The prefix of temporary files for `target`: ".NAME.tmp-" in the target's directory.
std::string temp_prefix(const std::string& target);

}  // namespace simdex::writer
