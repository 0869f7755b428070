#include "format/run_tasks.h"

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <exception>
#include <mutex>
#include <system_error>
#include <thread>
#include <vector>

namespace simdex::format {

void run_tasks(unsigned threads, std::size_t count,
               const std::function<void(std::size_t, unsigned, std::atomic<uint64_t>&)>& task,
               const TaskProgress& progress) {
  std::atomic<std::size_t> next{0};
  std::atomic<uint64_t> done{0};
  std::atomic<bool> failed{false};
  std::exception_ptr error;
  std::mutex lock;
  std::condition_variable finished;
  unsigned running = threads;
  auto work = [&](unsigned worker) {
    try {
      for (std::size_t i; !failed && (i = next.fetch_add(1)) < count;) task(i, worker, done);
    } catch (...) {
      std::lock_guard g(lock);
      if (!error) error = std::current_exception();
      failed = true;
    }
    std::lock_guard g(lock);
    if (--running == 0) finished.notify_all();
  };
  std::vector<std::thread> pool;
  // One worker and nobody to report to: the calling thread works (a thread's start costs tens of
  // microseconds, what a small batch spends on a table).
  if (threads == 1 && !progress.report) {
    running = 1;
    work(0);
    if (error) std::rethrow_exception(error);
    return;
  }
  try {
    while (pool.size() < threads) pool.emplace_back(work, static_cast<unsigned>(pool.size()));
  } catch (const std::system_error& e) {
    // Out of threads (a process limit, address space): the workers started do all the work; with
    // none, the calling thread does it. Never leave a started thread unjoined (std::terminate).
    const auto started = static_cast<unsigned>(pool.size());
    static std::atomic<bool> warned{false};  // once a process: a join meets it once per table
    if (!warned.exchange(true))
      std::fprintf(stderr, "simdex: warning: could start only %u of %u threads (%s); going on with %u\n",
                   started, threads, e.what(), std::max(started, 1u));
    {
      std::lock_guard g(lock);
      running -= threads - started;
    }
    if (started == 0) {
      running = 1;
      work(0);
    }
  }
  {
    // The caller's thread only reports progress: the workers do the work.
    std::unique_lock g(lock);
    while (running > 0) {
      finished.wait_for(g, std::chrono::milliseconds(200));
      if (progress.report && running > 0) {
        g.unlock();
        progress.report(done.load(), progress.total);
        g.lock();
      }
    }
  }
  for (auto& th : pool) th.join();
  if (error) std::rethrow_exception(error);
  if (progress.report) progress.report(progress.total, progress.total);
}

}  // namespace simdex::format
