// Work cut into tasks run on a few threads: the one task runner of the library (batch jobs, the
// writer, fingerprints), so thread start-up, errors and progress are handled in one place.
#pragma once

#include <algorithm>
#include <atomic>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <future>
#include <memory>
#include <system_error>
#include <type_traits>
#include <utility>

namespace simdex::format {

struct TaskProgress {
  std::function<void(uint64_t, uint64_t)> report;  // may be empty
  uint64_t total = 0;
};
using Task = std::function<void(std::size_t task, unsigned worker, std::atomic<uint64_t>& done)>;

// Threads kept for several rounds of tasks: a job of many short rounds (a join runs six a table, a
// few milliseconds each at 100M on 16 threads; a build's reading two a block) starts its workers
// once instead of once a round. The threads start with the first round that needs them (no more
// than it has tasks) and stop with the pool.
class TaskPool {
 public:
  explicit TaskPool(unsigned threads);
  ~TaskPool();
  TaskPool(const TaskPool&) = delete;
  TaskPool& operator=(const TaskPool&) = delete;

  // Runs task(i, worker) for i in [0, count) on the pool's threads (workers 0..threads-1), calling
  // progress(done units, total units) from the calling thread meanwhile; tasks add to `done` through
  // the counter given. Rethrows the first exception of a task, or of progress (a caller stopping
  // the work), after every thread has stopped; once one was thrown, no new task of the round
  // starts. One thread, or at most one task, and no progress to report: the calling thread runs the
  // tasks itself.
  void run(std::size_t count, const Task& task, const TaskProgress& progress = {});
  unsigned threads() const { return threads_; }

 private:
  struct State;
  void start_workers(std::size_t wanted);
  unsigned threads_;
  std::unique_ptr<State> state_;
};

// In a task: true once its round is stopped (another task failed, or progress threw). A task that
// may run long (a dense group's comparisons) polls it and returns early: the round's results are
// dropped with the exception it rethrows.
bool round_stopped();

// One round of a pool of its own: TaskPool(threads).run(count, task, progress).
void run_tasks(unsigned threads, std::size_t count, const Task& task, const TaskProgress& progress = {});

// Work over n items cut into parts, one a thread: one part below `least` items, where starting
// threads costs more than they save, and no part of fewer than least / 16 items (up to 16 parts
// at `least`): a thread count far above the cores (--threads 4096 on two) cut 200,000 pairs into
// 4096 parts, each a thread with its own counters, and a 0.07 s build took 4 s.
constexpr uint64_t kPartsFrom = uint64_t{1} << 16;
constexpr unsigned parts_for(uint64_t n, unsigned threads, uint64_t least = kPartsFrom) {
  if (n < least) return 1;
  const uint64_t most = n / std::max<uint64_t>(1, least / 16);  // >= 16
  return static_cast<unsigned>(std::clamp<uint64_t>(most, 1, std::max(1u, threads)));
}

// Part `part` of `parts` over [0, n): [n * part / parts, n * (part + 1) / parts). The parts tile
// [0, n) in order and differ in size by at most one item. (n * parts stays far below 2^64 for the
// counts of items in memory this is used for.)
template <std::unsigned_integral T>
constexpr std::pair<T, T> part_range(T n, std::size_t part, std::size_t parts) {
  return {static_cast<T>(n * part / parts), static_cast<T>(n * (part + 1) / parts)};
}

// fn() on a thread of its own, or, where no thread can be had (a process limit), when the future is
// waited for: the work is done either way, in the background when it can be.
template <class Fn>
std::future<std::invoke_result_t<std::decay_t<Fn>>> async_or_deferred(Fn&& fn) {
  try {
    return std::async(std::launch::async, fn);
  } catch (const std::system_error&) {
    return std::async(std::launch::deferred, std::forward<Fn>(fn));
  }
}

}  // namespace simdex::format
