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

// A thread that blocks the signal (a program that blocks all of them, to sigwait() in one thread,
// blocks them in every thread) would leave a break unheard: the writer would wait out
// /proc/sys/fs/lease-break-time (45 s) and the change go unseen. Such an open takes no lease.
bool blocked_in_this_thread(int sig) {
  sigset_t mask;
  return pthread_sigmask(SIG_BLOCK, nullptr, &mask) == 0 && sigismember(&mask, sig) == 1;
}

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

// The handler a signal had before ours, to pass on what is not ours. Two copies: a handler reads
// the one published while install_handlers() fills the other (ours installed again on top of a
// handler put in after it).
struct Previous {
  struct sigaction action[2];
  std::atomic<int> current{0};
  const struct sigaction& get() const { return action[current.load()]; }
};
Previous previous_bus, previous_lease;
// A fault not ours, passed on to the handler before ours, that comes back means that handler did
// not cure it: the same fault again (a handler of Python's signal module, which returns), or the
// signal raise()d again (Python's faulthandler, which gives it to its own previous handler, ours
// when it was put in after us). It gets the default action then, where passing it on again would
// repeat for ever.
std::atomic<bool> passed_fault{false};
std::atomic<uintptr_t> last_passed{0};  // its address

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

// SIG_DFL, for chain().
const struct sigaction kDefaultAction = [] {
  struct sigaction a {};
  a.sa_handler = SIG_DFL;
  return a;
}();

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
  if (!handled) {
    const bool fault = info->si_code > 0;  // else sent (kill, raise)
    const bool back = fault ? passed_fault.exchange(true) && last_passed.load() == addr : passed_fault.load();
    if (fault) last_passed.store(addr);
    chain(back ? kDefaultAction : previous_bus.get(), sig, info, context, true);
  }
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
  if (!ours) chain(previous_lease.get(), sig, info, context, false);
  errno = saved_errno;
}

// `handler` for `sig`, unless it is there: the first time, and again over a handler put in since
// (a program's, Python's faulthandler.enable() after an index was opened), which becomes the one
// that gets the signals not ours.
void install(int sig, void (*handler)(int, siginfo_t*, void*), Previous& previous) {
  struct sigaction current {};
  if (sigaction(sig, nullptr, &current) != 0) return;
  if ((current.sa_flags & SA_SIGINFO) && current.sa_sigaction == handler) return;
  const int other = 1 - previous.current.load();
  previous.action[other] = current;
  previous.current.store(other);
  struct sigaction sa {};
  sa.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_RESTART;
  sigemptyset(&sa.sa_mask);
  sa.sa_sigaction = handler;
  sigaction(sig, &sa, nullptr);
}

void install_handlers() {
  static std::mutex mutex;  // one install at a time: each fills the copy of Previous not in use
  const std::lock_guard lock(mutex);
  install(SIGBUS, on_sigbus, previous_bus);
  if (kLeases) install(lease_signal(), on_lease_break, previous_lease);
}

}  // namespace

bool same_contents(const struct stat& a, const struct stat& b) {
  return a.st_size == b.st_size && a.st_mtim.tv_sec == b.st_mtim.tv_sec &&
         a.st_mtim.tv_nsec == b.st_mtim.tv_nsec;
}

ChangeWatch::ChangeWatch(int fd) : slot_(acquire_slot()), fd_(fd) {
  install_handlers();
  slot_->changed = false;
  slot_->fd = fd;
  // The lease first, then fstat: a change after fstat is either seen by it or breaks the lease.
  if constexpr (kLeases) {
    if (!blocked_in_this_thread(lease_signal()) && fcntl(fd, F_SETSIG, lease_signal()) == 0) {
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
  if (leased()) {
    // A break whose signal no thread takes (blocked everywhere since the open) is pending in the
    // kernel, which then reports the lease it is breaking to (F_UNLCK): marked, and given back.
    if (fcntl(fd_, F_GETLEASE) == F_RDLCK) return false;
    mark_changed(*slot_);
    return true;
  }
  struct stat now {};
  return fstat(fd_, &now) != 0 || !same_contents(now, at_open_);
}

}  // namespace simdex::reader
