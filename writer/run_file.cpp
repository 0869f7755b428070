#include "writer/run_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>

#include "io/fd_io.h"
#include "simdex/error.h"
#include "writer/temp_files.h"

namespace simdex::writer {

namespace {
std::string os_error(const std::string& what, const std::string& path) {
  return what + " " + path + ": " + std::strerror(errno);
}
}  // namespace

std::string system_temp_directory() {
  // $TMPDIR when set and not empty (an empty one is unset, as the shell and mktemp read it).
  const char* env = std::getenv("TMPDIR");
  const std::string dir = env != nullptr && *env != '\0' ? env : "/tmp";
  struct stat st {};
  const bool found = ::stat(dir.c_str(), &st) == 0;
  if (!found || !S_ISDIR(st.st_mode)) {
    const int error = found ? ENOTDIR : errno;
    throw Error(errc::io,
                "no temporary directory: " + (dir == "/tmp" ? dir : "TMPDIR='" + dir + "'") + ": " +
                    std::strerror(error) + " (set TMPDIR to a directory with room for the work's files)",
                error);
  }
  return dir;
}

ScratchSpace::ScratchSpace(std::string dir) : dir_(dir.empty() ? system_temp_directory() : std::move(dir)) {
  std::error_code ec;
  // Checked now, not at the first spill: a large build would find out only after reading its input.
  if (!std::filesystem::is_directory(dir_, ec))
    throw Error(errc::io, "temporary directory '" + dir_ + "' does not exist or is not a directory",
                std::filesystem::exists(dir_, ec) ? ENOTDIR : ENOENT);
  require_room_for_temporary_paths(dir_);
  remove_unlocked(dir_, kPrefix);  // leftovers of killed builds
}

std::string ScratchSpace::next_path() {
  std::lock_guard lock(mutex_);
  return dir_ + "/" + kPrefix + std::to_string(::getpid()) + "-" + std::to_string(counter_++);
}

uint64_t ScratchSpace::bytes_in_use() const {
  std::lock_guard lock(mutex_);
  return in_use_;
}
uint64_t ScratchSpace::peak_bytes() const {
  std::lock_guard lock(mutex_);
  return peak_;
}
uint64_t ScratchSpace::files_created() const {
  std::lock_guard lock(mutex_);
  return counter_;
}

void ScratchSpace::account(int64_t delta) {
  std::lock_guard lock(mutex_);
  in_use_ = static_cast<uint64_t>(static_cast<int64_t>(in_use_) + delta);
  peak_ = std::max(peak_, in_use_);
}

TempFile::TempFile(ScratchSpace& space)
    : space_(space), file_([&space] { return space.next_path(); }, O_RDWR, 0600) {}

TempFile::~TempFile() { space_.account(-static_cast<int64_t>(size_)); }  // file_ removes the file

void TempFile::append(const void* data, std::size_t bytes) {
  if (!io::pwrite_all(file_.fd(), data, bytes, size_))
    throw Error(errc::io, os_error("cannot write temporary file", path()), errno);
  size_ += bytes;
  space_.account(static_cast<int64_t>(bytes));
}

std::size_t TempFile::read_at(uint64_t offset, void* data, std::size_t bytes) const {
  const ssize_t done = io::pread_full(file_.fd(), data, bytes, offset);
  if (done < 0) throw Error(errc::io, os_error("cannot read temporary file", path()), errno);
  return static_cast<std::size_t>(done);
}

void throw_short_read(const std::string& path) {
  throw Error(errc::io, "temporary file " + path + " is shorter than written");
}

}  // namespace simdex::writer
