// Temporary files that belong to a live build (spec/FORMAT.md §11): each is created under a fresh
// name, held under an exclusive flock by its creator until it is published or removed, and listed
// in a registry that a signal handler can empty. A file whose lock nobody holds was left by a
// process that is gone (killed, crashed, on another host or in another PID namespace alike), so
// cleanup removes exactly the files it can lock; a process id says nothing across namespaces.
#pragma once

#include <sys/types.h>

#include <functional>
#include <string>
#include <utility>

namespace simdex::writer {

// Error(io) when `dir` is so long a path that the temporary files and directories made in it
// (".simdex-stdout-XXXXXX/.index.sdx.keys.tsv.tmp-PID-N", ...) would pass PATH_MAX: found when the
// directory is chosen, not at the first spill once the input is read.
void require_room_for_temporary_paths(const std::string& dir);

// A new file, created with open(O_CREAT | O_EXCL | flags, mode) at the first name from `next_name`
// that is free, locked (flock LOCK_EX) and registered for removal on a signal. The lock lasts as
// long as the descriptor stays open. Throws Error(io) naming the path.
class OwnedTemp {
 public:
  OwnedTemp(const std::function<std::string()>& next_name, int flags, mode_t mode);
  ~OwnedTemp();  // closes the descriptor; removes the file unless renamed away
  OwnedTemp(const OwnedTemp&) = delete;
  OwnedTemp& operator=(const OwnedTemp&) = delete;

  int fd() const { return fd_; }
  const std::string& path() const { return path_; }
  // Renames the file to `target` (holding the lock until the descriptor is closed), after which it
  // is no longer a temporary file. Returns false with errno set when rename fails.
  bool rename_to(const std::string& target);
  // Closes the descriptor (releasing the lock); returns close's result.
  int close();

 private:
  std::string path_;
  int fd_ = -1;
  int slot_ = -1;                 // in the signal registry; -1: not registered
  std::pair<dev_t, ino_t> id_{};  // in the set of this process's own files
  bool renamed_ = false;
};

// A file this process wrote under a name that nothing reads yet (a set's new member before the
// manifest that names it): removed by the signal cleanup while registered, and when dropped unless
// released. Register it only once the name is this process's (no other file can have it).
class UnpublishedFile {
 public:
  explicit UnpublishedFile(std::string path);
  ~UnpublishedFile();  // removes the file unless released
  UnpublishedFile(const UnpublishedFile&) = delete;
  UnpublishedFile& operator=(const UnpublishedFile&) = delete;

  // With the step that makes the file someone else's (the manifest's rename, in one
  // without_cleanup_signals step with it): neither a signal nor the destructor removes it then.
  void release();

 private:
  std::string path_;
  int slot_ = -1;  // in the signal registry; -1: not registered (or released)
  bool released_ = false;
};

// A directory of this process's own, "PARENT/PREFIX" and six random characters, for files it
// publishes and opens at once (the index `build -o -` copies to stdout, the one index of a set's
// live pairs): its writer's temporary files and the published file live in it, so that nothing
// outlives the process however it ends. Held under an exclusive flock while it lives (removal of
// what a killed process left never takes a live one: remove_unlocked_directories, which the
// constructor runs first); removed, with the files in it, when dropped or on a cleanup signal.
class ScratchDirectory {
 public:
  ScratchDirectory(const std::string& parent, const std::string& prefix);
  ~ScratchDirectory();
  ScratchDirectory(const ScratchDirectory&) = delete;
  ScratchDirectory& operator=(const ScratchDirectory&) = delete;
  const std::string& path() const { return path_; }

 private:
  std::string path_;
  int fd_ = -1;
  int slot_ = -1;  // in the signal registry
  std::pair<dev_t, ino_t> id_{};
};

// Removes the files in `dir` whose names start with `prefix` and whose lock nobody holds.
void remove_unlocked(const std::string& dir, const std::string& prefix);
// Removes the directories in `dir` whose names start with `prefix` and whose lock nobody holds (a
// ScratchDirectory of a process that is gone), with the files in them.
void remove_unlocked_directories(const std::string& dir, const std::string& prefix);

// Runs step() (a rename or link that publishes, with the registrations and releases that go with
// it) as one step for the signal cleanup: a cleanup signal that came first stops it (Error(io),
// step() not run: the cleanup is removing the files registered before it); one that comes during
// it is handled after it, on the files registered then. So a signal never removes a file that a
// rename has just made a manifest name, nor leaves one that it has just dropped. Keep step() short
// (no fsync): the cleanup waits for it up to a second.
void without_cleanup_signals(const std::function<void()>& step);

// Async-signal-safe: removes every registered temporary file of this process. After it, the
// process must end (the builds that owned the files fail).
void remove_registered_temps() noexcept;

}  // namespace simdex::writer
