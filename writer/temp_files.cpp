#include "writer/temp_files.h"

#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <mutex>
#include <set>
#include <utility>

#include "format/system_error.h"
#include "simdex/builder.h"
#include "simdex/error.h"

namespace simdex::writer {

namespace {

// The signal registry: fixed slots, so a handler reads it without allocating or locking. A slot is
// free, being filled, live (its path may be removed), or being removed by a handler.
enum SlotState : int { kFree, kFilling, kLive, kRemoving };
struct Slot {
  std::atomic<int> state{kFree};
  bool directory = false;  // removed after the files (which it may hold), with rmdir
  char path[PATH_MAX];
};
static_assert(std::atomic<int>::is_always_lock_free, "a signal handler may only use lock-free atomics");
constexpr int kSlots = 256;  // more temporary files at once than a build makes (fan-in 64 + a few)
Slot slots[kSlots];

// A forked child does not own its parent's temporary files (the parent's builds go on writing
// them): its cleanup, on a signal or as a Python interpreter ends, must not remove them.
[[maybe_unused]] const bool forgotten_in_children = [] {
  ::pthread_atfork(nullptr, nullptr, [] {
    for (Slot& slot : slots) slot.state.store(kFree);
  });
  return true;
}();

// Returns the slot, or -1 when every slot is taken or the path is too long: that file is then only
// removed by its owner or a later build's cleanup.
int register_path(const std::string& path, bool directory = false) {
  if (path.size() >= PATH_MAX) return -1;
  for (int i = 0; i < kSlots; ++i) {
    int expected = kFree;
    if (!slots[i].state.compare_exchange_strong(expected, kFilling)) continue;
    slots[i].directory = directory;
    std::memcpy(slots[i].path, path.c_str(), path.size() + 1);
    slots[i].state.store(kLive);
    return i;
  }
  return -1;
}

// Creations between open() and registration, and publishing steps (without_cleanup_signals). The
// thread blocks the cleanup signals meanwhile, so a handler runs on another thread: it sets
// `dying`, then waits for the windows under way (a few milliseconds at most) before it scans the
// slots. A window that sees `dying` does nothing; one the handler waits for has registered (and
// released) its files before the scan. So no file created just before or during the signal is
// left behind, and none a rename has just handed over is removed.
std::atomic<int> creating{0};
std::atomic<bool> dying{false};

class CreationWindow {
 public:
  CreationWindow() {
    sigset_t cleanup_signals;
    sigemptyset(&cleanup_signals);
    for (int sig : {SIGINT, SIGTERM, SIGHUP}) sigaddset(&cleanup_signals, sig);
    pthread_sigmask(SIG_BLOCK, &cleanup_signals, &old_);
    creating.fetch_add(1);
  }
  ~CreationWindow() {
    creating.fetch_sub(1);
    pthread_sigmask(SIG_SETMASK, &old_, nullptr);
  }
  CreationWindow(const CreationWindow&) = delete;
  CreationWindow& operator=(const CreationWindow&) = delete;

 private:
  sigset_t old_;
};

void wait_for_creations() noexcept {
  for (int i = 0; i < 1000 && creating.load() > 0; ++i) {
    const timespec millisecond{0, 1'000'000};
    ::nanosleep(&millisecond, nullptr);
  }
}

void unregister(int slot) {
  if (slot < 0) return;
  int expected = kLive;
  // Fails only while a handler removes the file: the handler frees the slot itself.
  slots[slot].state.compare_exchange_strong(expected, kFree);
}

// Whether `path` still names the file open on `fd` (a cleanup may have removed it in between).
bool names_fd(const std::string& path, int fd) {
  struct stat by_path {
  }, by_fd{};
  return ::stat(path.c_str(), &by_path) == 0 && ::fstat(fd, &by_fd) == 0 && by_path.st_dev == by_fd.st_dev &&
         by_path.st_ino == by_fd.st_ino;
}

// This process's own temporary files (device, inode): cleanup never opens them. Where flock is
// emulated by POSIX locks (NFS), a second lock from the same process would succeed, and closing any
// descriptor of the file would drop the lock its build holds.
// Never destroyed (as the normalizer's pages): a daemon thread of a Python program may still create or
// remove a temporary file while exit() runs the static destructors ("double free" at exit, rarely).
std::mutex own_mutex;
std::set<std::pair<dev_t, ino_t>>& own_files = *new std::set<std::pair<dev_t, ino_t>>;

bool is_own(const struct stat& st) {
  std::lock_guard lock(own_mutex);
  return own_files.count({st.st_dev, st.st_ino}) != 0;
}

// The file open on `fd` made one of this process's own, and its id (for disown()).
std::pair<dev_t, ino_t> own(int fd) {
  struct stat st {};
  if (::fstat(fd, &st) != 0) return {};
  std::lock_guard lock(own_mutex);
  own_files.insert({st.st_dev, st.st_ino});
  return {st.st_dev, st.st_ino};
}

void disown(const std::pair<dev_t, ino_t>& id) {
  std::lock_guard lock(own_mutex);
  own_files.erase(id);
}

void remove_temps_and_die(int sig) {
  dying.store(true);
  wait_for_creations();
  remove_registered_temps();
  ::signal(sig, SIG_DFL);
  ::raise(sig);  // blocked until this handler returns; then the default action ends the process
}

}  // namespace

OwnedTemp::OwnedTemp(const std::function<std::string()>& next_name, int flags, mode_t mode) {
  constexpr int kAttempts = 100;
  for (int attempt = 1;; ++attempt) {
    path_ = next_name();
    int open_error = 0;
    {
      const CreationWindow window;  // registered before a cleanup signal can end the process
      if (dying.load())
        throw Error(errc::io, "not creating '" + path_ + "': the process is ending by a signal");
      fd_ = ::open(path_.c_str(), O_CREAT | O_EXCL | O_CLOEXEC | flags, mode);
      if (fd_ >= 0)
        slot_ = register_path(path_);
      else
        open_error = errno;
    }
    if (fd_ < 0) {
      errno = open_error;
      // A taken name: the same process id in another PID namespace, or a leftover.
      if (errno == EEXIST && attempt < kAttempts) continue;
      throw system_error("cannot create temporary file", path_);
    }
    // EWOULDBLOCK: another build's cleanup holds the fresh file and removes it. Other errors mean
    // the file system has no locks; cleanup cannot lock there either, so it removes nothing.
    const bool locked = ::flock(fd_, LOCK_EX | LOCK_NB) == 0;
    if ((locked || errno != EWOULDBLOCK) && names_fd(path_, fd_)) break;
    unregister(slot_);  // the file is another build's cleanup's now
    slot_ = -1;
    ::close(fd_);
    fd_ = -1;
    if (attempt >= kAttempts)
      throw Error(errc::io,
                  "cannot create temporary file '" + path_ + "': removed by another build's cleanup");
  }
  id_ = own(fd_);
}

OwnedTemp::~OwnedTemp() {
  if (!renamed_) ::unlink(path_.c_str());  // before unregistering: a signal in between finds it gone
  unregister(slot_);
  if (fd_ >= 0) ::close(fd_);
  disown(id_);
}

bool OwnedTemp::rename_to(const std::string& target) {
  if (::rename(path_.c_str(), target.c_str()) != 0) return false;
  renamed_ = true;
  unregister(slot_);
  slot_ = -1;
  return true;
}

int OwnedTemp::close() {
  const int rc = ::close(fd_);
  fd_ = -1;
  return rc;
}

namespace {
// Removes the regular files in the directory open on `fd`, then the directory `path` itself.
void remove_directory_and_files(int fd, const std::string& path) {
  const int listed = ::dup(fd);
  if (DIR* d = listed >= 0 ? ::fdopendir(listed) : nullptr) {
    while (const dirent* e = ::readdir(d)) {
      struct stat st {};
      if (::fstatat(fd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(st.st_mode))
        ::unlinkat(fd, e->d_name, 0);
    }
    ::closedir(d);
  } else if (listed >= 0) {
    ::close(listed);
  }
  ::rmdir(path.c_str());
}

// Removes the regular files (or, with `directories`, the directories and the files in them) in
// `dir` whose names start with `prefix` and whose lock nobody holds.
void remove_unlocked_entries(const std::string& dir, const std::string& prefix, bool directories) {
  DIR* d = ::opendir(dir.c_str());
  if (!d) return;
  const auto wanted = [directories](const struct stat& st) {
    return directories ? S_ISDIR(st.st_mode) : S_ISREG(st.st_mode);
  };
  while (const dirent* e = ::readdir(d)) {
    if (std::strncmp(e->d_name, prefix.c_str(), prefix.size()) != 0) continue;
    // A directory's name is the prefix and mkdtemp's six characters: another name is not one of ours.
    if (directories && std::strlen(e->d_name) != prefix.size() + 6) continue;
    const std::string path = dir + "/" + e->d_name;
    struct stat st {};
    if (::lstat(path.c_str(), &st) != 0 || !wanted(st) || is_own(st)) continue;
    const int fd =
        ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW | (directories ? O_DIRECTORY : O_NONBLOCK));
    if (fd < 0) continue;
    if (::fstat(fd, &st) == 0 && wanted(st) && ::flock(fd, LOCK_EX | LOCK_NB) == 0 && names_fd(path, fd)) {
      if (directories)
        remove_directory_and_files(fd, path);
      else
        ::unlink(path.c_str());
    }
    ::close(fd);
  }
  ::closedir(d);
}
}  // namespace

void remove_unlocked(const std::string& dir, const std::string& prefix) {
  remove_unlocked_entries(dir, prefix, false);
}

void remove_unlocked_directories(const std::string& dir, const std::string& prefix) {
  remove_unlocked_entries(dir, prefix, true);
}

void require_room_for_temporary_paths(const std::string& dir) {
  constexpr std::size_t kRoom = 128;  // the longest name below `dir` simdex makes, with margin
  if (dir.size() + kRoom < PATH_MAX) return;
  throw Error(errc::io,
              "temporary directory '" + dir.substr(0, 64) + "...' is " + std::to_string(dir.size()) +
                  " bytes long: the files made in it would pass the " + std::to_string(PATH_MAX) +
                  "-byte limit on a path; use a shorter one (TMPDIR, or --tmp-dir)",
              ENAMETOOLONG);
}

ScratchDirectory::ScratchDirectory(const std::string& parent, const std::string& prefix) {
  require_room_for_temporary_paths(parent);
  remove_unlocked_directories(parent, prefix);
  constexpr int kAttempts = 100;
  for (int attempt = 1;; ++attempt) {
    path_ = parent + "/" + prefix + "XXXXXX";
    bool made = false;
    int error = 0;
    {
      const CreationWindow window;  // registered before a cleanup signal can end the process
      if (dying.load())
        throw Error(errc::io,
                    "not creating a directory in '" + parent + "': the process is ending by a signal");
      made = ::mkdtemp(path_.data()) != nullptr;
      if (made) {
        slot_ = register_path(path_, true);
        fd_ = ::open(path_.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
      }
      error = errno;
    }
    if (!made) {
      errno = error;
      throw system_error("cannot create a temporary directory in", parent);
    }
    // EWOULDBLOCK, or a directory gone (ENOENT, or another at its name): another process's
    // cleanup took it before its lock. Other flock errors mean no locks here: none can lock it.
    if (fd_ >= 0) {
      const bool locked = ::flock(fd_, LOCK_EX | LOCK_NB) == 0;
      if ((locked || errno != EWOULDBLOCK) && names_fd(path_, fd_)) break;
      ::close(fd_);
      fd_ = -1;
    } else if (error != ENOENT) {
      unregister(slot_);
      ::rmdir(path_.c_str());
      errno = error;
      throw system_error("cannot open the temporary directory", path_);
    }
    unregister(slot_);
    slot_ = -1;
    if (attempt >= kAttempts)
      throw Error(errc::io, "cannot create a temporary directory in '" + parent +
                                "': removed by another process's cleanup each time");
  }
  id_ = own(fd_);
}

ScratchDirectory::~ScratchDirectory() {
  remove_directory_and_files(fd_, path_);  // before unregistering: a signal in between finds it gone
  unregister(slot_);
  ::close(fd_);
  disown(id_);
}

UnpublishedFile::UnpublishedFile(std::string path) : path_(std::move(path)), slot_(register_path(path_)) {}

void without_cleanup_signals(const std::function<void()>& step) {
  const CreationWindow window;
  if (dying.load()) throw Error(errc::io, "not publishing: the process is ending by a signal");
  step();
}

UnpublishedFile::~UnpublishedFile() {
  if (released_) return;
  ::unlink(path_.c_str());  // before unregistering, as OwnedTemp's
  unregister(slot_);
}

void UnpublishedFile::release() {
  unregister(slot_);
  slot_ = -1;
  released_ = true;
}

void remove_registered_temps() noexcept {
  const int saved = errno;
  for (bool directories : {false, true})  // the files first: a directory may hold some
    for (auto& slot : slots) {
      if (slot.state.load() != kLive || slot.directory != directories) continue;
      int expected = kLive;
      if (!slot.state.compare_exchange_strong(expected, kRemoving)) continue;
      directories ? ::rmdir(slot.path) : ::unlink(slot.path);
      slot.state.store(kFree);
    }
  errno = saved;
}

}  // namespace simdex::writer

namespace simdex {

void remove_temporary_files_on_signals() {
  // SIGPIPE too: `simdex dedup - -o - | head` ends by it, and must not leave its copy of stdin.
  for (int sig : {SIGINT, SIGTERM, SIGHUP, SIGPIPE}) {
    struct sigaction old {};
    // An ignored or handled signal stays as it is (a build started with nohup or `&` ignores SIGINT).
    if (::sigaction(sig, nullptr, &old) != 0 || (old.sa_flags & SA_SIGINFO) || old.sa_handler != SIG_DFL)
      continue;
    struct sigaction action {};
    action.sa_handler = writer::remove_temps_and_die;
    sigemptyset(&action.sa_mask);
    ::sigaction(sig, &action, nullptr);
  }
  // A file size limit (ulimit -f) ended the process by SIGXFSZ, silently and leaving its files:
  // ignored, the write that passes it fails with EFBIG, an error as a full disk's.
  struct sigaction old {};
  if (::sigaction(SIGXFSZ, nullptr, &old) == 0 && !(old.sa_flags & SA_SIGINFO) && old.sa_handler == SIG_DFL)
    ::signal(SIGXFSZ, SIG_IGN);
}

}  // namespace simdex
