// Buffered writing to stdout through fmt; one syscall per 64 KiB, not per line.
#pragma once

#include <fmt/format.h>

#include <cstdio>

namespace simdex::cli {

class Output {
 public:
  ~Output() { flush(); }
  template <typename... Args>
  void print(fmt::format_string<Args...> f, Args&&... args) {
    fmt::format_to(std::back_inserter(buffer_), f, std::forward<Args>(args)...);
    if (buffer_.size() > (1 << 16)) flush();
  }
  fmt::memory_buffer& buffer() { return buffer_; }
  void flush() {
    std::fwrite(buffer_.data(), 1, buffer_.size(), stdout);
    std::fflush(stdout);
    buffer_.clear();
  }

 private:
  fmt::memory_buffer buffer_;
};

}  // namespace simdex::cli
