// A whole file mapped read-only through Boost.Interprocess. Processes mapping the same file share
// its pages in the page cache; nothing is copied into the process's heap.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

namespace simdex::reader {

class MappedFile {
 public:
  explicit MappedFile(const std::string& path);  // throws Error(io)
  ~MappedFile();
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;
  const uint8_t* data() const { return data_; }
  std::size_t size() const { return size_; }

  // How the pages will be read, told to the kernel (madvise). A new mapping is `random`: a probe
  // reads a block here and a block there, and the default read-around would load some 32 pages
  // around each one, which on a file larger than the page cache evicts what other probes need.
  // Scans over every block (verify, pairs, clusters) ask for `sequential` read-ahead meanwhile.
  enum class Access { random, sequential };
  void advise(Access access) const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
  const uint8_t* data_ = nullptr;
  std::size_t size_ = 0;
};

}  // namespace simdex::reader
