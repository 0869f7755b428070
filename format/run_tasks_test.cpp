// run_tasks: every task once, on the workers asked for (the calling thread when one worker, or a
// round of one task, has no progress to report), and the first error rethrown after the others
// stopped.
#include "format/run_tasks.h"

#include <doctest/doctest.h>

#include <chrono>
#include <mutex>
#include <set>
#include <stdexcept>
#include <thread>
#include <vector>

using simdex::format::run_tasks;
using simdex::format::TaskProgress;

TEST_CASE("run_tasks runs each task once, on the threads asked for") {
  for (unsigned threads : {1u, 2u, 5u}) {
    for (bool report : {false, true}) {
      CAPTURE(threads);
      CAPTURE(report);
      std::vector<std::atomic<int>> runs(1000);
      std::mutex lock;
      std::set<std::thread::id> ran_on;
      std::set<unsigned> workers;
      TaskProgress progress;
      uint64_t last_done = 0;
      if (report) progress.report = [&](uint64_t done, uint64_t) { last_done = done; };
      progress.total = runs.size();
      run_tasks(
          threads, runs.size(),
          [&](std::size_t i, unsigned worker, std::atomic<uint64_t>& done) {
            ++runs[i];
            ++done;
            std::lock_guard g(lock);
            ran_on.insert(std::this_thread::get_id());
            workers.insert(worker);
          },
          progress);
      for (auto& r : runs) CHECK(r == 1);
      CHECK(*workers.rbegin() < threads);
      // One worker with nobody to report to: no thread is started for it.
      CHECK((threads == 1 && !report) == (ran_on.count(std::this_thread::get_id()) == 1));
      if (report) CHECK(last_done == runs.size());
    }
  }
}

TEST_CASE("run_tasks rethrows a task's error, on one thread or several") {
  for (unsigned threads : {1u, 3u}) {
    CAPTURE(threads);
    std::atomic<int> started{0};
    // The other tasks take a millisecond each: for all 100,000 to start before the failure is
    // seen, the failing thread would have to wait 50 s for a core (with tasks of no time, a
    // thread descheduled for a few milliseconds on a loaded machine let them all start).
    auto fail_at_7 = [&](std::size_t i, unsigned, std::atomic<uint64_t>&) {
      ++started;
      if (i == 7) throw std::runtime_error("task 7");
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    };
    CHECK_THROWS_WITH(run_tasks(threads, 100000, fail_at_7), "task 7");
    CHECK(started < 100000);  // no new task starts once one failed
  }
}

TEST_CASE("a TaskPool runs round after round on the same threads, a failed round leaving it usable") {
  for (unsigned threads : {1u, 4u}) {
    CAPTURE(threads);
    simdex::format::TaskPool pool(threads);
    std::mutex lock;
    std::set<std::thread::id> ran_on;
    for (int round = 0; round < 50; ++round) {
      std::vector<std::atomic<int>> runs(1 + 37 * round % 101);
      TaskProgress progress;
      uint64_t last_done = 0;
      if (round % 3 == 0) progress.report = [&](uint64_t done, uint64_t) { last_done = done; };
      progress.total = runs.size();
      auto task = [&](std::size_t i, unsigned worker, std::atomic<uint64_t>& done) {
        CHECK(worker < threads);
        ++runs[i];
        ++done;
        std::lock_guard g(lock);
        ran_on.insert(std::this_thread::get_id());
      };
      pool.run(runs.size(), task, progress);
      for (auto& r : runs) CHECK(r == 1);
      if (progress.report) CHECK(last_done == runs.size());
      if (round % 10 == 5) {
        CHECK_THROWS_WITH(pool.run(20,
                                   [](std::size_t i, unsigned, std::atomic<uint64_t>&) {
                                     if (i == 3) throw std::runtime_error("round failed");
                                   }),
                          "round failed");
      }
    }
    // Rounds 0, 3, ... report progress, so the pool's own threads ran them: no more than asked
    // for, besides the caller (which runs none of them once the workers started).
    ran_on.erase(std::this_thread::get_id());
    CHECK(ran_on.size() <= threads);
    CHECK(!ran_on.empty());
  }
}

TEST_CASE("a TaskPool starts no more threads than its rounds have tasks") {
  simdex::format::TaskPool pool(64);
  std::mutex lock;
  std::set<std::thread::id> ran_on;
  std::set<unsigned> workers;
  auto run_round = [&](std::size_t count) {
    pool.run(count, [&](std::size_t, unsigned worker, std::atomic<uint64_t>&) {
      std::this_thread::sleep_for(std::chrono::milliseconds(2));  // every worker takes a task
      std::lock_guard g(lock);
      ran_on.insert(std::this_thread::get_id());
      workers.insert(worker);
    });
  };
  for (int round = 0; round < 5; ++round) run_round(3);
  CHECK(ran_on.size() <= 3);
  CHECK(*workers.rbegin() < 3);
  run_round(6);  // three more start, numbered on from the first three
  CHECK(ran_on.size() <= 6);
  CHECK(*workers.rbegin() < 6);
  ran_on.clear();
  run_round(6);
  CHECK(ran_on.size() >= 2);  // the later threads serve later rounds
}

TEST_CASE("a round of one task with nobody to report to runs on the calling thread") {
  simdex::format::TaskPool pool(4);
  auto thread_of = [&](std::size_t count, bool report) {
    std::mutex lock;
    std::set<std::thread::id> ran_on;
    TaskProgress progress;
    if (report) progress.report = [](uint64_t, uint64_t) {};
    progress.total = count;
    pool.run(
        count,
        [&](std::size_t, unsigned worker, std::atomic<uint64_t>&) {
          CHECK(worker < 4);
          std::lock_guard g(lock);
          ran_on.insert(std::this_thread::get_id());
        },
        progress);
    return ran_on;
  };
  const auto caller = std::this_thread::get_id();
  CHECK(thread_of(1, false) == std::set{caller});  // before the workers started
  CHECK(thread_of(1, true).count(caller) == 0);    // a progress report: the caller reports, a worker works
  CHECK(thread_of(64, false).count(caller) == 0);  // the workers now run
  CHECK(thread_of(1, false) == std::set{caller});  // and still not one task alone
}

TEST_CASE("a progress report that throws stops the round, as a task's error does") {
  simdex::format::TaskPool pool(3);
  std::atomic<int> started{0};
  TaskProgress stop;
  stop.report = [](uint64_t, uint64_t) { throw std::runtime_error("stopped by the caller"); };
  stop.total = 100000;
  auto slow = [&](std::size_t, unsigned, std::atomic<uint64_t>& done) {
    ++started;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
    ++done;
  };
  // 100,000 tasks of a millisecond on 3 threads: 33 s unless the first report (200 ms) stops them.
  CHECK_THROWS_WITH(pool.run(100000, slow, stop), "stopped by the caller");
  CHECK(started < 100000);
  std::atomic<int> runs{0};
  pool.run(10, [&](std::size_t, unsigned, std::atomic<uint64_t>&) { ++runs; });  // the pool goes on
  CHECK(runs == 10);
}

TEST_CASE("a long task sees its round stopped and returns early") {
  for (bool by_progress : {false, true}) {
    CAPTURE(by_progress);
    simdex::format::TaskPool pool(2);
    CHECK(!simdex::format::round_stopped());  // outside a round
    TaskProgress progress;
    if (by_progress) progress.report = [](uint64_t, uint64_t) { throw std::runtime_error("stop"); };
    const auto start = std::chrono::steady_clock::now();
    // Task 0 fails at once (or progress throws within 200 ms); task 1 would run a minute.
    auto task = [&](std::size_t i, unsigned, std::atomic<uint64_t>&) {
      if (i == 0 && !by_progress) throw std::runtime_error("stop");
      while (!simdex::format::round_stopped() &&
             std::chrono::steady_clock::now() - start < std::chrono::minutes(1))
        std::this_thread::sleep_for(std::chrono::microseconds(100));
    };
    CHECK_THROWS_WITH(pool.run(2, task, progress), "stop");
    CHECK(std::chrono::steady_clock::now() - start < std::chrono::seconds(30));
    std::atomic<bool> stopped_in_next_round{false};
    pool.run(4, [&](std::size_t, unsigned, std::atomic<uint64_t>&) {
      if (simdex::format::round_stopped()) stopped_in_next_round = true;
    });
    CHECK(!stopped_in_next_round);  // a new round starts unstopped
  }
}

TEST_CASE("async_or_deferred: the work's value or error, from a thread of its own") {
  const std::thread::id caller = std::this_thread::get_id();
  auto value = simdex::format::async_or_deferred([] { return std::this_thread::get_id(); });
  CHECK(value.get() != caller);  // threads can be had here: the work ran on one
  auto error = simdex::format::async_or_deferred([]() -> int { throw std::runtime_error("failed"); });
  CHECK_THROWS_WITH(error.get(), "failed");
}

TEST_CASE(
    "part_range tiles [0, n) in order, parts differing by at most one; parts_for splits from kPartsFrom") {
  using simdex::format::part_range;
  using simdex::format::parts_for;
  for (uint64_t n : {uint64_t{0}, uint64_t{1}, uint64_t{7}, uint64_t{1000}, uint64_t{1} << 40}) {
    for (std::size_t parts : {std::size_t{1}, std::size_t{3}, std::size_t{16}, std::size_t{1024}}) {
      CAPTURE(n);
      CAPTURE(parts);
      uint64_t next = 0, least = ~uint64_t{0}, most = 0;
      for (std::size_t s = 0; s < parts; ++s) {
        const auto [begin, end] = part_range(n, s, parts);
        REQUIRE(begin == next);
        REQUIRE(end >= begin);
        least = std::min(least, end - begin);
        most = std::max(most, end - begin);
        next = end;
      }
      CHECK(next == n);
      CHECK(most - least <= 1);
    }
  }
  CHECK(parts_for(simdex::format::kPartsFrom - 1, 8) == 1);
  CHECK(parts_for(simdex::format::kPartsFrom, 8) == 8);
  CHECK(parts_for(1000, 0) == 1);
  CHECK(parts_for(300, 4, 256) == 4);
  CHECK(parts_for(255, 4, 256) == 1);
  // Parts of at least least / 16 items, whatever the threads asked for (16 threads and fewer: a
  // part each from `least` on).
  CHECK(parts_for(simdex::format::kPartsFrom, 16) == 16);
  CHECK(parts_for(simdex::format::kPartsFrom, 4096) == 16);
  CHECK(parts_for(200'000, 4096) == 200'000 / 4096);
  CHECK(parts_for(uint64_t{1} << 40, 4096) == 4096);
  CHECK(parts_for(300, 4096, 256) == 300 / 16);
  CHECK(parts_for(300, 4096, 1) == 300);  // a `least` below 16: parts of one item
}
