#include "reader/change_watch.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/mman.h>

#include <cerrno>
#include <mutex>

namespace simdex::reader {

namespace {

#if defined(__linux__) && defined(F_SETLEASE)
constexpr bool kLeases = true;
#else
constexpr bool kLeases = false;
#endif

// The lease-break signal: a realtime one (queued, so no break is lost; it carries the descriptor).
int lease_signal() { return SIGRTMIN + 6; }

}  // namespace

// One watched mapping. Slots live in a list that only grows (a handler may walk it at any moment,
// so nothing is ever freed) and are reused once released; every field a handler reads is atomic.
struct ChangeWatch::Slot {
  std::atomic<bool> in_use{false};
  std::atomic<int> fd{-1};
  // none, taking (F_SETLEASE under way: a break already counts), held.
  enum Lease { none, taking, held };
  std::atomic<int> lease{none};
  std::atomic<uintptr_t> begin{0}, size{0};
  std::atomic<bool> changed{false};
  Slot* next = nullptr;  // set before the slot is published, then constant
};

namespace {

std::atomic<ChangeWatch::Slot*> slots{nullptr};
struct sigaction previous_bus, previous_lease;

ChangeWatch::Slot* acquire_slot() {
  for (auto* s = slots.load(); s; s = s->next) {
    bool free = false;
    if (s->in_use.compare_exchange_strong(free, true)) return s;
  }
  auto* s = new ChangeWatch::Slot;
  s->in_use = true;
  s->next = slots.load();
  while (!slots.compare_exchange_weak(s->next, s)) {
  }
  return s;
}

// Async-signal-safe from here to install_handlers: atomics and system calls only.

void mark_changed(ChangeWatch::Slot& s) {
  s.changed.store(true, std::memory_order_release);
  // Let the writer go on (a lease being taken is given up by the constructor).
  if (s.lease.exchange(ChangeWatch::Slot::none) == ChangeWatch::Slot::held)
    fcntl(s.fd.load(), F_SETLEASE, F_UNLCK);
}

// What the handler that was there before would have done with the signal.
void chain(const struct sigaction& previous, int sig, siginfo_t* info, void* context, bool default_kills) {
  if (previous.sa_flags & SA_SIGINFO) {
    if (previous.sa_sigaction) previous.sa_sigaction(sig, info, context);
  } else if (previous.sa_handler != SIG_DFL && previous.sa_handler != SIG_IGN) {
    previous.sa_handler(sig);
  } else if (default_kills && (previous.sa_handler == SIG_DFL || info->si_code > 0)) {
    // The default action (a fault cannot be ignored): restore it and take the signal again.
    struct sigaction dfl {};
    dfl.sa_handler = SIG_DFL;
    sigemptyset(&dfl.sa_mask);
    sigaction(sig, &dfl, nullptr);
    raise(sig);
  }
}

void on_sigbus(int sig, siginfo_t* info, void* context) {
  const int saved_errno = errno;
  const auto addr = reinterpret_cast<uintptr_t>(info->si_addr);
  bool handled = false;
  if (info->si_code > 0)  // sent by the kernel for this access, not by kill()
    for (auto* s = slots.load(); s && !handled; s = s->next) {
      const uintptr_t begin = s->begin.load(), size = s->size.load();
      if (!s->in_use.load() || size == 0 || addr < begin || addr - begin >= size) continue;
      mark_changed(*s);
      // Zero pages over the whole mapping: the faulting read and every later one read zeros.
      handled = mmap(reinterpret_cast<void*>(begin), size, PROT_READ,
                     MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED | MAP_NORESERVE, -1, 0) != MAP_FAILED;
    }
  if (!handled) chain(previous_bus, sig, info, context, true);
  errno = saved_errno;
}

void on_lease_break(int sig, siginfo_t* info, void* context) {
  const int saved_errno = errno;
  bool ours = false;
  if (info->si_code == POLL_MSG)
    for (auto* s = slots.load(); s; s = s->next) {
      const int lease = s->lease.load();
      if (!s->in_use.load() || lease == ChangeWatch::Slot::none) continue;
      // Signals of several breaks may merge: every held lease that is being broken is handled.
      const int fd = s->fd.load();
      const bool this_one = fd == info->si_fd;
      ours = ours || this_one;
      if (this_one || (lease == ChangeWatch::Slot::held && fcntl(fd, F_GETLEASE) != F_RDLCK))
        mark_changed(*s);
    }
  // Never the default action (it would end the process): a late signal of a closed index is dropped.
  if (!ours) chain(previous_lease, sig, info, context, false);
  errno = saved_errno;
}

void install_handlers() {
  static std::once_flag once;
  std::call_once(once, [] {
    struct sigaction sa {};
    sa.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_RESTART;
    sigemptyset(&sa.sa_mask);
    sa.sa_sigaction = on_sigbus;
    sigaction(SIGBUS, &sa, &previous_bus);
    if (kLeases) {
      sa.sa_sigaction = on_lease_break;
      sigaction(lease_signal(), &sa, &previous_lease);
    }
  });
}

// Size and mtime: not ctime, which a rename over the file changes too (the old inode loses its link).
bool same_contents(const struct stat& a, const struct stat& b) {
  return a.st_size == b.st_size && a.st_mtim.tv_sec == b.st_mtim.tv_sec &&
         a.st_mtim.tv_nsec == b.st_mtim.tv_nsec;
}

}  // namespace

ChangeWatch::ChangeWatch(int fd) : slot_(acquire_slot()), fd_(fd) {
  install_handlers();
  slot_->changed = false;
  slot_->fd = fd;
  // The lease first, then fstat: a change after fstat is either seen by it or breaks the lease.
  if constexpr (kLeases) {
    if (fcntl(fd, F_SETSIG, lease_signal()) == 0) {
      slot_->lease = Slot::taking;  // before the lease exists, so that a break at once finds it
      int taking = Slot::taking;
      if (fcntl(fd, F_SETLEASE, F_RDLCK) != 0)
        slot_->lease = Slot::none;
      else if (!slot_->lease.compare_exchange_strong(taking, Slot::held))
        fcntl(fd, F_SETLEASE, F_UNLCK);  // broken already
    }
  }
  fstat(fd, &at_open_);
}

void ChangeWatch::watch_mapping(const uint8_t* data, std::size_t size) {
  slot_->size = 0;
  slot_->begin = reinterpret_cast<uintptr_t>(data);
  slot_->size = size;
}

ChangeWatch::~ChangeWatch() {
  slot_->size = 0;
  if (slot_->lease.exchange(Slot::none) == Slot::held) fcntl(fd_, F_SETLEASE, F_UNLCK);
  slot_->fd = -1;
  slot_->in_use = false;
}

const std::atomic<bool>& ChangeWatch::changed_flag() const { return slot_->changed; }

bool ChangeWatch::leased() const { return slot_->lease.load() == Slot::held; }

bool ChangeWatch::changed_now() const {
  if (changed(slot_->changed)) return true;
  if (leased()) return false;
  struct stat now {};
  return fstat(fd_, &now) != 0 || !same_contents(now, at_open_);
}

}  // namespace simdex::reader
