#include "set/set_files.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <thread>

#include "format/set_manifest.h"
#include "format/standard_output_guard.h"
#include "format/system_error.h"
#include "io/fd_io.h"
#include "simdex/error.h"
#include "writer/atomic_file.h"

namespace simdex::set {

std::string reopen_path(const std::string& path) {
  std::error_code ec;
  const std::filesystem::path absolute = std::filesystem::absolute(path, ec);
  return ec ? path : absolute.string();
}

std::string manifest_file(const std::string& path) {
  std::error_code ec;
  if (!std::filesystem::is_symlink(path, ec)) return path;
  const std::filesystem::path target = std::filesystem::canonical(path, ec);
  return ec ? path : target.string();  // a dangling link: the error names `path` when it is opened
}

std::string set_directory(const std::string& manifest_path) {
  const std::string dir = std::filesystem::path(manifest_path).parent_path().string();
  return dir.empty() ? "." : dir;
}

std::string entry_path(const std::string& manifest_path, const std::string& name) {
  return set_directory(manifest_path) + "/" + name;
}

namespace {
std::string generation_name(const std::string& manifest_path, uint64_t generation, const char* ext) {
  char hex[17];
  std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(generation));
  return std::filesystem::path(manifest_path).filename().string() + "-" + hex + ext;
}
}  // namespace

std::string member_name(const std::string& manifest_path, uint64_t generation) {
  return generation_name(manifest_path, generation, ".sdx");
}
std::string tombstone_name(const std::string& manifest_path, uint64_t generation) {
  return generation_name(manifest_path, generation, ".sdt");
}

std::string pending_entry_path(const std::string& manifest_path, const std::string& name) {
  // A hidden name that starts as the set's temporary files do: a writer killed before the entry
  // took its name leaves it to the next writer's cleanup (remove_unlocked, once nobody holds it).
  return set_directory(manifest_path) + "/." + name + ".pending-" + std::to_string(::getpid());
}

std::string removable_entry_path(const std::string& manifest_path, const std::string& name) {
  const std::string directory = set_directory(manifest_path);
  for (std::size_t slash = name.find('/'); slash != std::string::npos; slash = name.find('/', slash + 1)) {
    struct stat st {};
    if (::lstat((directory + "/" + name.substr(0, slash)).c_str(), &st) != 0 || !S_ISDIR(st.st_mode))
      return {};  // a link (or something gone): what it leads to is not the set's to remove
  }
  return entry_path(manifest_path, name);
}

bool remove_entry_file(const std::string& manifest_path, const std::string& name) {
  const std::string path = removable_entry_path(manifest_path, name);
  return !path.empty() && ::unlink(path.c_str()) == 0;
}

void name_entry_file(const std::string& manifest_path, const std::string& pending, const std::string& name) {
  const std::string target = entry_path(manifest_path, name);
  auto taken = [&] {
    ::unlink(pending.c_str());
    return Error(errc::io, "'" + target +
                               "' exists: another writer published that generation of the set meanwhile (one "
                               "that did not take SET.lock?); nothing was published");
  };
  // link(2) fails when the name is taken (rename(2) would replace); a file system without hard
  // links gets a check and rename.
  if (::link(pending.c_str(), target.c_str()) == 0) {
    ::unlink(pending.c_str());
  } else if (errno == EEXIST) {
    throw taken();
  } else {
    struct stat st {};
    if (::lstat(target.c_str(), &st) == 0) throw taken();
    if (::rename(pending.c_str(), target.c_str()) != 0) {
      const int err = errno;
      ::unlink(pending.c_str());
      throw Error(errc::io, "cannot rename '" + pending + "' to '" + target + "': " + std::strerror(err),
                  err);
    }
  }
}

std::string checked_set_path(std::string path) {
  writer::checked_target(path);
  const std::string member = member_name(path, 1);
  if (const std::string why = format::check_entry_name(member); !why.empty())
    throw Error(errc::usage,
                "'" + path + "' cannot name an index set: its files are named after it ('" + member +
                    "'), and in such a name " + why +
                    " (spec/SET.md §2.2); choose a name of A-Z a-z 0-9 . _ - not starting with '.'");
  // The longest name a writer makes from it: a member's hidden pending name, written through a
  // temporary file ("..NAME-G.sdx.pending-PID.tmp-PID-N"), at most 68 bytes more than NAME.
  constexpr std::size_t longest_derived = 68, name_max = 255;
  const std::string name = std::filesystem::path(path).filename().string();
  if (name.size() + longest_derived > name_max)
    throw Error(errc::usage,
                "'" + path + "' cannot name an index set: its name has " + std::to_string(name.size()) +
                    " bytes, and the names of its files (up to " + std::to_string(longest_derived) +
                    " bytes longer) must fit the file system's " + std::to_string(name_max) +
                    "; choose a name of at most " + std::to_string(name_max - longest_derived) + " bytes");
  return path;
}

std::vector<uint8_t> read_whole_file(const std::string& path, uint64_t max_bytes, uint64_t* size) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  struct stat st {};
  if (fd < 0 || ::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    const int err = errno;
    if (fd >= 0) ::close(fd);
    if (fd < 0 && err != ENOENT && err != ENOTDIR && err != ELOOP)
      throw Error(errc::io, "cannot open '" + path + "': " + std::strerror(err), err);
    throw Error(errc::member_missing, "'" + path + "' is missing or not a regular file");
  }
  format::check_not_standard_output(fd, path, format::CloseOnRefusal::yes);
  if (size) *size = static_cast<uint64_t>(st.st_size);
  const auto file_bytes = static_cast<uint64_t>(st.st_size);
  const uint64_t keep =
      file_bytes <= max_bytes ? file_bytes : std::min<uint64_t>(max_bytes, format::kSetHeaderBytes);
  std::vector<uint8_t> bytes(static_cast<std::size_t>(keep));
  const ssize_t r = io::pread_full(fd, bytes.data(), bytes.size(), 0);
  if (r < 0 || static_cast<std::size_t>(r) < bytes.size()) {
    const int err = errno;
    ::close(fd);
    throw Error(errc::io, "reading '" + path + "': " + (r >= 0 ? "file shrank" : std::strerror(err)),
                r >= 0 ? 0 : err);
  }
  ::close(fd);
  return bytes;
}

std::vector<uint8_t> read_manifest(const std::string& path) {
  uint64_t size = 0;
  std::vector<uint8_t> bytes = read_whole_file(path, format::kMaxManifestBytes, &size);
  if (size <= format::kMaxManifestBytes) return bytes;
  try {
    format::SetManifest::reject_oversized(bytes.data(), size);
  } catch (const Error& e) {
    throw Error(e.code(), "'" + path + "': " + e.detail());
  }
}

format::SetManifest decode_manifest(const std::string& path, const std::vector<uint8_t>& bytes) {
  try {
    return format::SetManifest::decode(bytes.data(), bytes.size());
  } catch (const Error& e) {
    throw Error(e.code(), "'" + path + "': " + e.detail());
  }
}

void require_regular_file(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode))
    throw Error(errc::member_missing, "'" + path + "' is missing or not a regular file");
}

SetLock::SetLock(const std::string& manifest_path, bool wait, const std::function<void()>& waiting)
    : path_(manifest_path + ".lock") {
  writer::require_target_directory(manifest_path);  // its message names the set, not SET.lock
  const std::string& path = path_;
  // A lock taken on a file that was then removed (or replaced) locks nothing: a writer that opens
  // the path afterwards gets another file. So the lock must be on the file at the path, checked
  // after locking; else locked again on the file there now.
  for (;;) {
    fd_ = ::open(path.c_str(), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    created_ = fd_ >= 0;
    if (!created_ && errno == EEXIST) fd_ = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd_ < 0) throw system_error("cannot open the set's lock file", path);
    const bool poll = wait && waiting;
    while (::flock(fd_, LOCK_EX | (wait && !poll ? 0 : LOCK_NB)) != 0) {
      if (errno == EINTR) continue;
      const int err = errno;
      if (poll && err == EWOULDBLOCK) {
        try {
          waiting();
        } catch (...) {
          ::close(fd_);
          throw;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
        continue;
      }
      ::close(fd_);
      if (err == EWOULDBLOCK)
        throw Error(errc::io, "another writer holds the set's lock '" + path + "'; try again when it is done",
                    err);
      throw Error(errc::io, "cannot lock '" + path + "': " + std::strerror(err), err);
    }
    if (holds_file_at_path()) return;
    ::close(fd_);
  }
}

SetLock::~SetLock() { ::close(fd_); }  // closing releases the flock

bool SetLock::holds_file_at_path() const {
  struct stat held {
  }, named{};
  return ::fstat(fd_, &held) == 0 && ::stat(path_.c_str(), &named) == 0 && held.st_dev == named.st_dev &&
         held.st_ino == named.st_ino;
}

void SetLock::remove_if_created() {
  if (created_ && holds_file_at_path()) ::unlink(path_.c_str());
  created_ = false;
}

}  // namespace simdex::set
