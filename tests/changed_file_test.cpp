// Files changed under a reader (issue 12 item 5, spec/FORMAT.md "Readers and changed files"): two
// threads query an open index in a loop while the file is truncated, overwritten in place (as cp,
// as rsync --inplace: smaller, larger, same size) or replaced by rename. No crash (SIGBUS), and
// every answer either equals brute force over the file that was opened or is Error(file_changed).
// Each case runs with the read lease and without one (a writer holding the file open at open time
// makes the lease fail: the fallback of fstat in check_unchanged and the SIGBUS handler alone).
#include <doctest/doctest.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <map>
#include <thread>

#include "reader/index_impl.h"
#include "simdex/batch.h"
#include "test_util.h"

using namespace simdex;
using namespace simdex::test;

namespace {

enum class Change { truncate, cp_smaller, cp_larger, cp_same_size, rsync_inplace, rename };

std::string name(Change c) {
  switch (c) {
    case Change::truncate:
      return "truncate";
    case Change::cp_smaller:
      return "cp smaller";
    case Change::cp_larger:
      return "cp larger";
    case Change::cp_same_size:
      return "cp same size";
    case Change::rsync_inplace:
      return "rsync --inplace";
    case Change::rename:
      return "rename";
  }
  return "";
}

void write_all(int fd, const std::vector<uint8_t>& bytes, bool positioned) {
  for (std::size_t at = 0; at < bytes.size();) {
    const std::size_t chunk = std::min<std::size_t>(bytes.size() - at, 64 * 1024);
    const ssize_t n = positioned ? ::pwrite(fd, bytes.data() + at, chunk, static_cast<off_t>(at))
                                 : ::write(fd, bytes.data() + at, chunk);
    REQUIRE(n > 0);
    at += static_cast<std::size_t>(n);
  }
}

// Does to `path` what the tool named by `c` does, with `other` as the new contents.
void apply(Change c, const std::string& path, const std::vector<uint8_t>& other) {
  switch (c) {
    case Change::truncate:
      REQUIRE(::truncate(path.c_str(), 4096) == 0);
      return;
    case Change::cp_smaller:
    case Change::cp_larger:
    case Change::cp_same_size: {  // cp: open with O_TRUNC, write
      const int fd = ::open(path.c_str(), O_WRONLY | O_TRUNC);
      REQUIRE(fd >= 0);
      write_all(fd, other, false);
      ::close(fd);
      return;
    }
    case Change::rsync_inplace: {  // rsync --inplace: positioned writes, then the new size
      const int fd = ::open(path.c_str(), O_WRONLY);
      REQUIRE(fd >= 0);
      write_all(fd, other, true);
      REQUIRE(::ftruncate(fd, static_cast<off_t>(other.size())) == 0);
      ::close(fd);
      return;
    }
    case Change::rename: {
      const std::string tmp = path + ".new";
      const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
      REQUIRE(fd >= 0);
      write_all(fd, other, false);
      ::close(fd);
      REQUIRE(std::rename(tmp.c_str(), path.c_str()) == 0);
      return;
    }
  }
}

struct Files {
  TempDir dir;
  Pairs pairs;
  std::vector<uint8_t> original, smaller, larger;
  std::vector<uint64_t> queries;
  std::map<uint64_t, std::vector<Expected>> expected;
  static constexpr unsigned k = 3;

  Files() {
    std::mt19937_64 rng(12);
    pairs = clustered_pairs(rng, 30000, 3);
    BuildOptions o;
    o.k = k;
    build(dir.file("a.sdx"), pairs, o);
    original = read_bytes(dir.file("a.sdx"));
    build(dir.file("small.sdx"), random_pairs(rng, 3000), o);
    smaller = read_bytes(dir.file("small.sdx"));
    build(dir.file("large.sdx"), random_pairs(rng, 60000), o);
    larger = read_bytes(dir.file("large.sdx"));
    const Oracle oracle(pairs);
    queries = queries_for(rng, pairs, k, 300);
    for (uint64_t q : queries) expected[q] = oracle.query(q, k);
  }

  std::vector<uint8_t> contents_for(Change c) const {
    switch (c) {
      case Change::cp_larger:
        return larger;
      case Change::cp_same_size: {  // another index's bytes, cut or padded to the original's size
        auto b = larger;
        b.resize(original.size(), 0);
        return b;
      }
      case Change::rename:
        return larger;
      default:
        return smaller;
    }
  }
};

const Files& files() {
  static const Files f;
  return f;
}

std::string fresh_copy(const Files& f, const std::string& name) {
  const std::string path = f.dir.file(name);
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  REQUIRE(fd >= 0);
  write_all(fd, f.original, false);
  ::close(fd);
  return path;
}

// Opens the copy at `path`, with the lease or (a writer holding the file open) without one.
Index open_watched(const std::string& path, bool lease) {
  const int writer = lease ? -1 : ::open(path.c_str(), O_RDWR);
  Index index = Index::open(path);
  if (writer >= 0) ::close(writer);
  const bool leased = index_impl(index).mapping->watch()->leased();
  if (lease && !leased) MESSAGE("no read lease on this file system: the fallback is tested twice");
  if (!lease) CHECK(!leased);
  return index;
}

struct Tally {
  std::atomic<uint64_t> right{0}, changed{0}, wrong{0}, other_error{0};
};

// Queries in a loop until `stop`: each answer (ids copied out, then check_unchanged(), as
// include/simdex/index.h asks of a caller that keeps IdLists) is brute force's or file_changed.
void query_loop(const Index& index, const Files& f, const std::atomic<bool>& stop, Tally& t, unsigned seed) {
  std::vector<Hit> hits;
  std::vector<Expected> got;
  for (std::size_t i = seed; !stop.load(); ++i) {
    const uint64_t q = f.queries[i % f.queries.size()];
    try {
      index.query(q, Files::k, hits);
      got.clear();
      for (const Hit& h : hits) got.push_back({h.fingerprint, h.distance, h.ids.to_vector()});
      index.check_unchanged();
      ++(got == f.expected.at(q) ? t.right : t.wrong);
    } catch (const Error& e) {
      ++(e.code() == errc::file_changed ? t.changed : t.other_error);
    }
  }
}

void run_case(Change c, bool lease) {
  const Files& f = files();
  const std::string path =
      fresh_copy(f, std::string("live-") + (lease ? "lease-" : "plain-") + std::to_string(int(c)) + ".sdx");
  std::this_thread::sleep_for(std::chrono::milliseconds(20));  // a later write shows in mtime
  const Index index = open_watched(path, lease);
  std::atomic<bool> stop{false};
  Tally t;
  std::thread r1([&] { query_loop(index, f, stop, t, 0); });
  std::thread r2([&] { query_loop(index, f, stop, t, 150); });
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  const uint64_t before = t.right.load();
  apply(c, path, f.contents_for(c));
  std::this_thread::sleep_for(std::chrono::milliseconds(150));
  stop = true;
  r1.join();
  r2.join();
  INFO(name(c), lease ? " with lease" : " without lease", ": right ", t.right.load(), ", file_changed ",
       t.changed.load(), ", wrong ", t.wrong.load(), ", other errors ", t.other_error.load());
  CHECK(before > 0);
  CHECK(t.wrong.load() == 0);
  CHECK(t.other_error.load() == 0);
  if (c == Change::rename) {  // the old file stays mapped, whole and unchanged
    CHECK(t.changed.load() == 0);
    CHECK_NOTHROW(index.check_unchanged());
    CHECK(answer(index, f.queries[0], Files::k) == f.expected.at(f.queries[0]));
  } else {  // the change is known from now on, to every call
    CHECK(t.changed.load() > 0);
    CHECK(error_code([&] { index.check_unchanged(); }) == errc::file_changed);
    CHECK(error_code([&] { (void)index.verify(); }) == errc::file_changed);
  }
}

}  // namespace

namespace {
volatile sig_atomic_t own_handler_calls = 0;
void own_handler(int) { own_handler_calls = own_handler_calls + 1; }

// In a child: `own` installs a SIGBUS handler before the first Index::open; then a SIGBUS that is no
// fault in a mapping (raise) must reach it, or without one the default action (the process ends).
// Exit 77: simdex's handler was installed earlier in this process (the test did not run first).
int chain_child(const std::string& path, bool own) {
  if (own) std::signal(SIGBUS, own_handler);
  const Index index = Index::open(path);
  struct sigaction now {};
  sigaction(SIGBUS, nullptr, &now);
  if (!(now.sa_flags & SA_SIGINFO)) return 77;
  raise(SIGBUS);
  return own && own_handler_calls == 1 ? 42 : 0;
}
}  // namespace

// Declared first so that it runs in a process where no Index was opened yet.
TEST_CASE("SIGBUS not about an index mapping goes on to the handler installed before") {
  const std::string path = fresh_copy(files(), "chain.sdx");
  for (bool own : {true, false}) {
    const pid_t pid = fork();
    REQUIRE(pid >= 0);
    if (pid == 0) _exit(chain_child(path, own));
    int status = 0;
    REQUIRE(waitpid(pid, &status, 0) == pid);
    if (WIFEXITED(status) && WEXITSTATUS(status) == 77) {
      MESSAGE("skipped: the handler was installed before this test case ran");
      continue;
    }
    CAPTURE(own);
    if (own)
      CHECK((WIFEXITED(status) && WEXITSTATUS(status) == 42));
    else
      CHECK(!(WIFEXITED(status) && WEXITSTATUS(status) == 0));  // SIGBUS (ASan: its report, exit 1)
  }
}

namespace {
// In a child: a SIGBUS handler put in after an index was opened (as Python's faulthandler.enable()
// or signal.signal() late) is one simdex's handler, installed again by the next open, passes on to:
// a truncated index is still file_changed, a raised SIGBUS still reaches the program's handler.
// With `fault`, a fault in a mapping that is not an index's, which the program's handler (it returns)
// does not cure: the default action ends the child, where passing it on again looped for ever.
int late_handler_child(const std::string& first, const std::string& second, bool fault) {
  alarm(20);  // a loop ends in SIGALRM, which the parent tells apart
  const Index a = Index::open(first);
  std::signal(SIGBUS, own_handler);
  const Index b = Index::open(second);
  if (fault) {
    const std::string other = second + ".bytes";
    const int fd = ::open(other.c_str(), O_RDWR | O_CREAT | O_TRUNC, 0600);
    if (fd < 0 || ::ftruncate(fd, 8192) != 0) return 3;
    const auto* bytes = static_cast<const volatile char*>(mmap(nullptr, 8192, PROT_READ, MAP_SHARED, fd, 0));
    if (bytes == MAP_FAILED || ::ftruncate(fd, 0) != 0) return 3;
    return bytes[5000];  // SIGBUS
  }
  if (::truncate(second.c_str(), 300) != 0) return 3;
  try {
    (void)b.query(files().queries[0], Files::k);
    (void)b.verify();
    return 4;
  } catch (const Error& e) {
    if (e.code() != errc::file_changed) return 5;
  }
  raise(SIGBUS);
  return own_handler_calls == 1 ? 42 : 6;
}
}  // namespace

TEST_CASE("a SIGBUS handler put in after the first open: simdex's goes on top again, and passes it on") {
  const std::string first = fresh_copy(files(), "late-a.sdx");
  for (const bool fault : {false, true}) {
    const std::string second = fresh_copy(files(), "late-b.sdx");  // the child truncates it
    const pid_t pid = fork();
    REQUIRE(pid >= 0);
    if (pid == 0) _exit(late_handler_child(first, second, fault));
    int status = 0;
    REQUIRE(waitpid(pid, &status, 0) == pid);
    CAPTURE(fault);
    CAPTURE(status);
    if (!fault)
      CHECK((WIFEXITED(status) && WEXITSTATUS(status) == 42));
    else  // SIGBUS (ASan: its report, exit 1), never a loop (SIGALRM) nor a read that went on
      CHECK(((WIFSIGNALED(status) && WTERMSIG(status) == SIGBUS) ||
             (WIFEXITED(status) && WEXITSTATUS(status) == 1)));
  }
}

TEST_CASE("a reader under a loop of queries while its file changes: right answers or file_changed") {
  for (bool lease : {true, false})
    for (Change c : {Change::truncate, Change::cp_smaller, Change::cp_larger, Change::cp_same_size,
                     Change::rsync_inplace, Change::rename}) {
      CAPTURE(lease);
      CAPTURE(int(c));
      run_case(c, lease);
    }
}

// A program that blocks every signal (to sigwait() them in one thread) never hears a lease break:
// the writer waited out the lease-break time (45 s), and check_unchanged() saw nothing after it.
TEST_CASE("the lease's signal blocked: the writer does not wait, the change is still seen") {
  const Files& f = files();
  const int sig = SIGRTMIN + 6;
  sigset_t lease_signal, before;
  sigemptyset(&lease_signal);
  sigaddset(&lease_signal, sig);
  const auto overwrite_in_a_child = [&](const std::string& path) {  // cp over it, from another process
    const pid_t pid = fork();
    REQUIRE(pid >= 0);
    if (pid == 0) {
      const int fd = ::open(path.c_str(), O_WRONLY | O_TRUNC);
      _exit(fd >= 0 && ::write(fd, f.original.data(), 4096) == 4096 ? 0 : 1);
    }
    return pid;
  };
  SUBCASE("blocked when the index opens: no lease taken, fstat sees the change") {
    const std::string path = fresh_copy(f, "blocked-at-open.sdx");
    std::this_thread::sleep_for(std::chrono::milliseconds(20));  // a later write shows in mtime
    REQUIRE(pthread_sigmask(SIG_BLOCK, &lease_signal, &before) == 0);
    const Index index = Index::open(path);
    CHECK(!index_impl(index).mapping->watch()->leased());
    const auto start = std::chrono::steady_clock::now();
    int status = -1;
    REQUIRE(waitpid(overwrite_in_a_child(path), &status, 0) > 0);
    CHECK(std::chrono::steady_clock::now() - start < std::chrono::seconds(5));
    CHECK(status == 0);
    CHECK(error_code([&] { index.check_unchanged(); }) == errc::file_changed);
    REQUIRE(pthread_sigmask(SIG_SETMASK, &before, nullptr) == 0);
  }
  SUBCASE(
      "blocked after the open, the lease held: check_unchanged() finds the break and lets the writer go") {
    const std::string path = fresh_copy(f, "blocked-after-open.sdx");
    const Index index = Index::open(path);
    if (!index_impl(index).mapping->watch()->leased()) {
      MESSAGE("no read lease on this file system: nothing to test");
      return;
    }
    REQUIRE(pthread_sigmask(SIG_BLOCK, &lease_signal, &before) == 0);
    const auto start = std::chrono::steady_clock::now();
    const pid_t writer = overwrite_in_a_child(path);
    std::this_thread::sleep_for(std::chrono::milliseconds(200));  // the writer waits in open()
    CHECK(error_code([&] { index.check_unchanged(); }) == errc::file_changed);
    int status = -1;
    REQUIRE(waitpid(writer, &status, 0) > 0);
    CHECK(std::chrono::steady_clock::now() - start < std::chrono::seconds(5));
    CHECK(status == 0);
    REQUIRE(pthread_sigmask(SIG_SETMASK, &before, nullptr) == 0);  // the pending signal: not ours now
    CHECK(error_code([&] { index.check_unchanged(); }) == errc::file_changed);
  }
}

TEST_CASE("batch commands on worker threads: a truncated file is an error of the call, not a crash") {
  const Files& f = files();
  for (bool lease : {true, false}) {
    const std::string path = fresh_copy(f, std::string("batch-") + (lease ? "lease" : "plain") + ".sdx");
    const Index index = open_watched(path, lease);
    BatchOptions o;
    o.threads = 2;
    o.with_ids = true;
    uint64_t pairs = 0;
    find_pairs(index, o, [&](std::span<const NearPair> b) { pairs += b.size(); });
    REQUIRE(pairs > 0);
    bool truncated = false;
    // The cut comes from a callback, in the middle of the scan, while workers decode blocks.
    const auto cut = [&] {
      if (!truncated) REQUIRE(::truncate(path.c_str(), 4096) == 0);
      truncated = true;
    };
    try {
      find_pairs(index, o, [&](std::span<const NearPair>) { cut(); });
      FAIL("find_pairs on a truncated file did not throw");
    } catch (const Error& e) {
      CHECK(e.code() == errc::file_changed);
    }
    std::vector<Query> qs;
    for (uint64_t q : f.queries) qs.push_back({q, 0});
    for (auto&& call : {std::function<void()>([&] { join(index, qs, o, [](std::span<const JoinHit>) {}); }),
                        std::function<void()>(
                            [&] { find_clusters(index, o, {}, [](std::span<const ClusterMember>) {}); })}) {
      try {
        call();
        FAIL("a batch call on a truncated file did not throw");
      } catch (const Error& e) {
        CHECK(e.code() == errc::file_changed);
      }
    }
  }
}

TEST_CASE("detect_changes = false: no handler, no lease (for programs that own SIGBUS)") {
  const Files& f = files();
  const std::string path = fresh_copy(f, "unwatched.sdx");
  const Index index = Index::open(path, OpenOptions{.detect_changes = false});
  CHECK(index_impl(index).mapping->watch() == nullptr);
  CHECK(answer(index, f.queries[0], Files::k) == f.expected.at(f.queries[0]));
  CHECK_NOTHROW(index.check_unchanged());
}
