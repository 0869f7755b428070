// Reads and writes of file descriptors retried when a signal interrupts them (EINTR) and, for
// writes, until every byte is written: the one loop that each raw read and write of simdex needs.
// They report failure as the system calls do (errno set): each caller says what it was reading
// or writing in its own error.
#pragma once

#include <unistd.h>

#include <cerrno>
#include <cstddef>
#include <cstdint>

namespace simdex::io {

// read(2), retried on EINTR: the bytes read (0 at the end), or -1 with errno set.
inline ssize_t read_some(int fd, void* data, std::size_t size) {
  ssize_t got;
  while ((got = ::read(fd, data, size)) < 0 && errno == EINTR) {
  }
  return got;
}

// pread(2) until `size` bytes are read or the file ends: the bytes read, or -1 with errno set.
inline ssize_t pread_full(int fd, void* data, std::size_t size, uint64_t offset) {
  auto* p = static_cast<char*>(data);
  std::size_t done = 0;
  while (done < size) {
    const ssize_t got = ::pread(fd, p + done, size - done, static_cast<off_t>(offset + done));
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) return -1;
    if (got == 0) break;
    done += static_cast<std::size_t>(got);
  }
  return static_cast<ssize_t>(done);
}

namespace detail {
// Calls write(p, n, done) (a write of n bytes at p, `done` written before) until all are written.
template <typename Write>
bool write_fully(const void* data, std::size_t size, Write write) {
  const auto* p = static_cast<const char*>(data);
  std::size_t done = 0;
  while (done < size) {
    const ssize_t n = write(p + done, size - done, done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      if (n == 0) errno = EIO;
      return false;
    }
    done += static_cast<std::size_t>(n);
  }
  return true;
}
}  // namespace detail

// write(2) of all `size` bytes: true, or false with errno set (EIO where the system wrote none
// without an error).
inline bool write_all(int fd, const void* data, std::size_t size) {
  return detail::write_fully(data, size,
                             [fd](const char* p, std::size_t n, std::size_t) { return ::write(fd, p, n); });
}

// pwrite(2) of all `size` bytes at `offset`: as write_all.
inline bool pwrite_all(int fd, const void* data, std::size_t size, uint64_t offset) {
  return detail::write_fully(data, size, [fd, offset](const char* p, std::size_t n, std::size_t done) {
    return ::pwrite(fd, p, n, static_cast<off_t>(offset + done));
  });
}

}  // namespace simdex::io
