#include "format/run_tasks.h"

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <exception>
#include <mutex>
#include <system_error>
#include <thread>
#include <utility>
#include <vector>

namespace simdex::format {

namespace {
thread_local const std::atomic<bool>* round_failed = nullptr;  // of the round this thread works in
}

bool round_stopped() { return round_failed && round_failed->load(std::memory_order_relaxed); }

// The round in progress and the workers waiting for the next one.
struct TaskPool::State {
  std::mutex lock;
  std::condition_variable wake;      // a new round, or the pool stopping
  std::condition_variable finished;  // the last worker of a round is done
  uint64_t round = 0;
  bool stop = false;
  bool start_failed = false;  // a thread could not start: the pool goes on with those it has
  const Task* task = nullptr;
  std::size_t count = 0;
  std::atomic<std::size_t> next{0};
  std::atomic<uint64_t> done{0};
  std::atomic<bool> failed{false};
  std::exception_ptr error;
  unsigned running = 0;  // workers still in the round
  std::vector<std::thread> workers;

  // The round's tasks, taken one by one until none is left or one failed.
  void work(unsigned worker) {
    const std::atomic<bool>* outer = std::exchange(round_failed, &failed);  // a task may run a pool
    try {
      for (std::size_t i; !failed && (i = next.fetch_add(1)) < count;) (*task)(i, worker, done);
    } catch (...) {
      std::lock_guard g(lock);
      if (!error) error = std::current_exception();
      failed = true;
    }
    round_failed = outer;
  }
  // From round `seen` on (the last one before the worker started) the worker waits for the next.
  void serve(unsigned worker, uint64_t seen) {
    for (;;) {
      {
        std::unique_lock g(lock);
        wake.wait(g, [&] { return stop || round != seen; });
        if (stop) return;
        seen = round;
      }
      work(worker);
      std::lock_guard g(lock);
      if (--running == 0) finished.notify_all();
    }
  }
};

TaskPool::TaskPool(unsigned threads) : threads_(std::max(threads, 1u)), state_(std::make_unique<State>()) {}

TaskPool::~TaskPool() {
  {
    std::lock_guard g(state_->lock);
    state_->stop = true;
  }
  state_->wake.notify_all();
  for (auto& th : state_->workers) th.join();
}

void TaskPool::start_workers(std::size_t wanted) {
  State& s = *state_;
  try {
    // (Between rounds: no worker runs one, none changes `round`.)
    while (s.workers.size() < wanted)
      s.workers.emplace_back(
          [&s, w = static_cast<unsigned>(s.workers.size()), seen = s.round] { s.serve(w, seen); });
  } catch (const std::system_error& e) {
    s.start_failed = true;
    // Out of threads (a process limit, address space): the workers started do all the work; with
    // none, the calling thread does it. Never leave a started thread unjoined (std::terminate).
    static std::atomic<bool> warned{false};  // once a process: a join meets it once per table
    if (!warned.exchange(true))
      std::fprintf(stderr, "simdex: warning: could start only %zu of %zu threads (%s); going on with %zu\n",
                   s.workers.size(), wanted, e.what(), std::max<std::size_t>(s.workers.size(), 1));
  }
}

void TaskPool::run(std::size_t count, const Task& task, const TaskProgress& progress) {
  State& s = *state_;
  s.task = &task;
  s.count = count;
  s.next = 0;
  s.done = 0;
  s.failed = false;
  s.error = nullptr;
  // One thread would work (one worker, or at most one task) and nobody is to be reported to: the
  // calling thread works (a thread's start, or waking the pool's threads, costs tens of
  // microseconds: what a small batch spends on a table's sort).
  if (!progress.report && std::min<std::size_t>(count, threads_) <= 1) {
    s.work(0);
  } else {
    // No more threads than the round has tasks: a pool of --threads 4096 that runs rounds of a
    // few tasks starts a few (the rest start with a round that has tasks for them).
    const std::size_t wanted = std::min<std::size_t>(count, threads_);
    if (!s.start_failed && s.workers.size() < wanted) start_workers(wanted);
    if (s.workers.empty()) {
      s.work(0);
    } else {
      {
        std::lock_guard g(s.lock);
        s.running = static_cast<unsigned>(s.workers.size());
        ++s.round;
      }
      s.wake.notify_all();
      // The caller's thread only reports progress: the workers do the work.
      std::unique_lock g(s.lock);
      while (s.running > 0) {
        s.finished.wait_for(g, std::chrono::milliseconds(200));
        if (progress.report && s.running > 0 && !s.failed) {
          g.unlock();
          try {
            progress.report(s.done.load(), progress.total);
          } catch (...) {  // the caller stops the work (Python's Ctrl-C): as a task's error
            std::lock_guard e(s.lock);
            if (!s.error) s.error = std::current_exception();
            s.failed = true;
          }
          g.lock();
        }
      }
    }
  }
  if (s.error) std::rethrow_exception(s.error);
  if (progress.report) progress.report(progress.total, progress.total);
}

void run_tasks(unsigned threads, std::size_t count, const Task& task, const TaskProgress& progress) {
  TaskPool(threads).run(count, task, progress);
}

}  // namespace simdex::format
