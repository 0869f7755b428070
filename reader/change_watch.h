// Watching a mapped index file for changes made under the reader (spec/FORMAT.md "Readers and
// changed files"). Two signals, each handler installed at the first watch and again at a watch that
// finds another handler put in since, and chained to the handler it replaced:
// - SIGBUS: a read of a page past the end of a truncated file faults. When the address lies in a
//   watched mapping, the handler marks it changed and maps zero pages over the whole mapping, so the
//   read goes on (over zeros; the reader bounds-checks everything it reads, as for a hostile file)
//   and the call that read it throws Error(file_changed) on its way out. No longjmp: no C++ frame is
//   skipped, whatever the reading code holds.
// - A Linux read lease (fcntl F_SETLEASE, F_RDLCK) on the read-only descriptor: before another
//   process may open the file for writing or truncate it, the kernel sends kLeaseSignal; the handler
//   marks the mapping changed and gives the lease back, so the writer goes on at once.
// A query only loads the flag (no system call). Without a lease (not the file's owner and no
// CAP_LEASE, NFS, a writer already there at open, the signal blocked in the opening thread)
// changed_now() compares fstat with open's (size and mtime); with one, it asks the kernel whether
// the lease is being broken (a break whose signal every thread blocks).
#pragma once

#include <sys/stat.h>

#include <atomic>
#include <cstddef>
#include <cstdint>

namespace simdex::reader {

// Whether two fstat()s of one file see the same contents: its size and modification time (not
// ctime, which a rename over the file changes too).
bool same_contents(const struct stat& a, const struct stat& b);

class ChangeWatch {
 public:
  struct Slot;
  // Watches descriptor `fd` (open read-only on the file, kept open by the caller while this lives);
  // takes the lease when it can. Call watch_mapping() once the file is mapped.
  explicit ChangeWatch(int fd);
  ~ChangeWatch();
  ChangeWatch(const ChangeWatch&) = delete;
  ChangeWatch& operator=(const ChangeWatch&) = delete;

  void watch_mapping(const uint8_t* data, std::size_t size);
  // Set once a change is known; never cleared. Readers load it relaxed after an acquire fence.
  const std::atomic<bool>& changed_flag() const;
  bool leased() const;
  // The flag, and a system call: with a lease F_GETLEASE, without one fstat against open's.
  bool changed_now() const;

 private:
  Slot* slot_;
  int fd_;
  struct stat at_open_ {};
};

// True once the file behind `flag` is known to have changed. Loads of the mapped bytes made before
// this call are ordered before the flag's load, so a call that saw no change read the old bytes.
inline bool changed(const std::atomic<bool>& flag) {
  std::atomic_thread_fence(std::memory_order_acquire);
  return flag.load(std::memory_order_relaxed);
}

}  // namespace simdex::reader
