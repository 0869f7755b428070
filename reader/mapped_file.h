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

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
  const uint8_t* data_ = nullptr;
  std::size_t size_ = 0;
};

}  // namespace simdex::reader
