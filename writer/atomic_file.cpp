#include "writer/atomic_file.h"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>

#include "simdex/error.h"

namespace simdex::writer {

namespace {
constexpr std::size_t kBufferBytes = 1 << 20;

std::string directory_of(const std::string& path) {
  const auto slash = path.rfind('/');
  if (slash == std::string::npos) return ".";
  return slash == 0 ? "/" : path.substr(0, slash);
}
std::string base_of(const std::string& path) {
  const auto slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}
[[noreturn]] void fail(const std::string& what, const std::string& path) {
  throw Error(errc::io, what + " '" + path + "': " + std::strerror(errno));
}
bool process_alive(long pid) { return pid > 0 && (kill(static_cast<pid_t>(pid), 0) == 0 || errno == EPERM); }
}  // namespace

std::string temp_prefix(const std::string& target) {
  const std::string dir = directory_of(target);
  return (target.find('/') == std::string::npos ? "" : dir + "/") + "." + base_of(target) + ".tmp-";
}

AtomicFile::AtomicFile(std::string target) : target_(std::move(target)) {
  static std::atomic<unsigned> counter{0};
  if (target_.empty() || target_.back() == '/') throw Error(errc::usage, "output path '" + target_ + "' names no file");
  temp_ = temp_prefix(target_) + std::to_string(getpid()) + "-" + std::to_string(counter++);
  fd_ = ::open(temp_.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd_ < 0) fail("cannot create temporary file", temp_);
  buffer_.reserve(kBufferBytes);
}

AtomicFile::~AtomicFile() {
  if (fd_ >= 0) ::close(fd_);
  if (!published_) ::unlink(temp_.c_str());
}

void AtomicFile::write(const void* data, std::size_t size) {
  const auto* p = static_cast<const uint8_t*>(data);
  if (buffer_.size() + size > kBufferBytes) flush();
  if (size >= kBufferBytes) {
    pwrite_all(flushed_, p, size);
    flushed_ += size;
  } else {
    buffer_.insert(buffer_.end(), p, p + size);
  }
  position_ += size;
}

void AtomicFile::flush() {
  if (buffer_.empty()) return;
  pwrite_all(flushed_, buffer_.data(), buffer_.size());
  flushed_ += buffer_.size();
  buffer_.clear();
}

void AtomicFile::write_at(uint64_t offset, const void* data, std::size_t size) {
  flush();  // buffered bytes first, so they cannot land over these later
  pwrite_all(offset, data, size);
}

void AtomicFile::pwrite_all(uint64_t offset, const void* data, std::size_t size) {
  const auto* p = static_cast<const uint8_t*>(data);
  while (size > 0) {
    const ssize_t n = ::pwrite(fd_, p, size, static_cast<off_t>(offset));
    if (n < 0) {
      if (errno == EINTR) continue;
      fail("cannot write", temp_);
    }
    p += n;
    size -= static_cast<std::size_t>(n);
    offset += static_cast<uint64_t>(n);
  }
}

void AtomicFile::publish() {
  flush();
  if (::fsync(fd_) != 0) fail("cannot fsync", temp_);
  if (::close(fd_) != 0) {
    fd_ = -1;
    fail("cannot close", temp_);
  }
  fd_ = -1;
  if (::rename(temp_.c_str(), target_.c_str()) != 0) fail("cannot rename temporary file over", target_);
  published_ = true;
  const std::string dir = directory_of(target_);
  const int dfd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dfd < 0) fail("cannot open directory", dir);
  const int rc = ::fsync(dfd);
  ::close(dfd);
  if (rc != 0) fail("cannot fsync directory", dir);
  // Leftovers of killed builds of this target: ".NAME.tmp-PID-N" whose PID no longer runs.
  const std::string prefix = "." + base_of(target_) + ".tmp-";
  if (DIR* d = ::opendir(dir.c_str())) {
    while (const dirent* e = ::readdir(d)) {
      const std::string name = e->d_name;
      if (name.compare(0, prefix.size(), prefix) != 0) continue;
      const long pid = std::strtol(name.c_str() + prefix.size(), nullptr, 10);
      if (!process_alive(pid)) ::unlink((dir + "/" + name).c_str());
    }
    ::closedir(d);
  }
}

}  // namespace simdex::writer
