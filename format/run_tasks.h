// Work cut into tasks run on a few threads: the one task runner of the library (batch jobs, the
// writer, fingerprints), so thread start-up, errors and progress are handled in one place.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>

namespace simdex::format {

// Runs task(i, worker) for i in [0, count) on `threads` threads (workers 0..threads-1), calling
// progress(done units, total units) from the calling thread meanwhile; tasks add to `done` through
// the counter given. Rethrows the first exception of a task after every thread has stopped; once a
// task failed, no new task starts. One thread and no progress to report: the calling thread runs
// the tasks itself.
struct TaskProgress {
  std::function<void(uint64_t, uint64_t)> report;  // may be empty
  uint64_t total = 0;
};
void run_tasks(
    unsigned threads, std::size_t count,
    const std::function<void(std::size_t task, unsigned worker, std::atomic<uint64_t>& done)>& task,
    const TaskProgress& progress = {});

}  // namespace simdex::format
