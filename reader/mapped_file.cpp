#include "reader/mapped_file.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "format/page_cache.h"
#include "format/standard_output_guard.h"
#include "format/system_error.h"
#include "simdex/error.h"

namespace simdex::reader {

void allow_more_open_files(std::size_t more, const std::string& what) {
  struct rlimit limit {};
  if (::getrlimit(RLIMIT_NOFILE, &limit) != 0 || limit.rlim_cur == RLIM_INFINITY) return;
  // What is open now is not known cheaply; the lowest free descriptor bounds it from below.
  const int probe = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
  const rlim_t in_use = probe >= 0 ? static_cast<rlim_t>(probe) + 1 : limit.rlim_cur;
  if (probe >= 0) ::close(probe);
  const rlim_t wanted = in_use + static_cast<rlim_t>(more) + 64;  // 64: room for the process's other files
  if (wanted <= limit.rlim_cur) return;
  limit.rlim_cur = limit.rlim_max == RLIM_INFINITY ? wanted : std::min(wanted, limit.rlim_max);
  if (limit.rlim_cur >= wanted && ::setrlimit(RLIMIT_NOFILE, &limit) == 0) return;
  throw Error(errc::io,
              "cannot open " + what + ": the files of its " + std::to_string(more) +
                  " members each stay open, and the process may have " + std::to_string(limit.rlim_max) +
                  " open files (ulimit -n, the hard limit): raise it (once is enough to merge the "
                  "set's members into one, simdex merge)",
              EMFILE);
}

MappedFile::MappedFile(const std::string& path, bool watch_changes, const std::string& what) : path_(path) {
  fd_ = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);  // a FIFO must not block the open
  if (fd_ < 0) {
    const int e = errno;
    if (e == EMFILE) {
      struct rlimit limit {};
      ::getrlimit(RLIMIT_NOFILE, &limit);
      throw Error(errc::io,
                  "cannot open " + what + " '" + path + "': the process has its " +
                      std::to_string(limit.rlim_cur) +
                      " open files (ulimit -n); each open index, and each member of an open index "
                      "set, keeps one: raise the limit (once, to merge a set's members into one with "
                      "simdex merge)",
                  EMFILE);
    }
    throw Error(
        errc::io,
        "cannot open " + what + " '" + path + "': " + (e == ENOENT ? "no such file" : std::strerror(e)), e);
  }
  try {
    struct stat st {};
    if (fstat(fd_, &st) != 0) throw system_error("cannot stat " + what, path);
    if (S_ISDIR(st.st_mode)) throw Error(errc::io, what + " '" + path + "' is a directory", EISDIR);
    if (!S_ISREG(st.st_mode)) throw Error(errc::io, what + " '" + path + "' is not a regular file");
    format::check_not_standard_output(fd_, path);
    // The watch before the size is read: a change from here on is seen (reader/change_watch.h).
    if (watch_changes) watch_ = std::make_unique<ChangeWatch>(fd_);
    if (fstat(fd_, &st) != 0) throw system_error("cannot stat " + what, path);
    if (st.st_size == 0) return;  // nothing to map; the parser reports the file as too small
    const auto bytes = static_cast<std::size_t>(st.st_size);
    void* p = mmap(nullptr, bytes, PROT_READ, MAP_SHARED, fd_, 0);
    if (p == MAP_FAILED) throw system_error("cannot map " + what, path);
    data_ = static_cast<const uint8_t*>(p);
    size_ = bytes;
    if (watch_) watch_->watch_mapping(data_, size_);
  } catch (...) {
    watch_.reset();
    ::close(fd_);
    throw;
  }
  advise(Access::random);
}

void MappedFile::advise(Access access) const {
  // Advice only: a kernel that declines it changes the speed, never the answers.
  if (data_)
    madvise(const_cast<uint8_t*>(data_), size_, access == Access::random ? MADV_RANDOM : MADV_SEQUENTIAL);
}

void MappedFile::populate(std::size_t offset, std::size_t bytes, bool huge_pages) const {
  if (!data_ || offset >= size_) return;
  bytes = std::min(bytes, size_ - offset);
  const auto page = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
  const std::size_t begin = offset / page * page, end = offset + bytes;
  auto* p = const_cast<uint8_t*>(data_) + begin;
  if (huge_pages) format::page_cache::cache_in_huge_pages(fd_, begin, end - begin);
  // Read-ahead of the whole range first: the mapping is MADV_RANDOM, so the faults of a populate
  // alone would read one page per disk request.
  madvise(p, end - begin, MADV_WILLNEED);
#ifdef MADV_POPULATE_READ
  if (madvise(p, end - begin, MADV_POPULATE_READ) == 0) return;
#endif
  // Kernels before 5.14: touch each page once.
  uint8_t sink = 0;
  for (std::size_t at = begin; at < end; at += page)
    sink ^= *static_cast<volatile const uint8_t*>(data_ + at);
  asm volatile("" : : "r"(sink));
}

MappedFile::~MappedFile() {
  watch_.reset();  // first: no handler may touch the range once it is unmapped
  if (data_) munmap(const_cast<uint8_t*>(data_), size_);
  ::close(fd_);
}

}  // namespace simdex::reader
