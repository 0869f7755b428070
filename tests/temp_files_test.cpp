// Targets and temporary files of a build: a target that is not a regular file is refused (never
// renamed over), and cleanup removes exactly the temporary files no live process holds locked,
// whatever process id their names carry (spec/FORMAT.md §11).
#include "writer/temp_files.h"

#include <doctest/doctest.h>
#include <fcntl.h>
#include <limits.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <deque>
#include <filesystem>
#include <fstream>
#include <thread>

#include "test_util.h"
#include "writer/atomic_file.h"
#include "writer/run_file.h"

using namespace simdex;
using namespace simdex::test;
namespace fs = std::filesystem;

namespace {

std::string dir_of(const TempDir& t) { return fs::path(t.file("x")).parent_path().string(); }

// A set's member file `name` in `dir`, by its path.
std::string member_file(const TempDir& dir, const std::string& name) {
  std::ofstream(dir.file(name)) << "a member";
  return dir.file(name);
}

// Another process that holds an exclusive flock on `path` until destroyed: a live build as seen
// from another PID namespace or host, where the process id in the file's name means nothing.
class LockHolder {
 public:
  explicit LockHolder(const std::string& path) {
    int ready[2], release[2];
    REQUIRE(::pipe(ready) == 0);
    REQUIRE(::pipe(release) == 0);
    pid_ = ::fork();
    REQUIRE(pid_ >= 0);
    if (pid_ == 0) {
      const int fd = ::open(path.c_str(), O_RDONLY);
      const char ok = fd >= 0 && ::flock(fd, LOCK_EX | LOCK_NB) == 0 ? '1' : '0';
      (void)!::write(ready[1], &ok, 1);
      char c;
      ::close(release[1]);
      (void)!::read(release[0], &c, 1);  // returns when the parent closes its end
      ::_exit(0);
    }
    ::close(ready[1]);
    ::close(release[0]);
    release_ = release[1];
    char ok = '0';
    REQUIRE(::read(ready[0], &ok, 1) == 1);
    ::close(ready[0]);
    REQUIRE(ok == '1');
  }
  ~LockHolder() {
    ::close(release_);
    int status = 0;
    ::waitpid(pid_, &status, 0);
  }

 private:
  pid_t pid_ = -1;
  int release_ = -1;
};

void touch(const std::string& path) { std::ofstream(path) << "left by a build"; }

BuildOptions small_build(const TempDir& dir, bool spill) {
  BuildOptions o;
  o.scheme = Scheme::named("paper-4", 3, 0);
  o.temp_dir = dir_of(dir);
  if (spill) o.memory_bytes = 64 << 10;
  return o;
}

}  // namespace

TEST_CASE("cleanup spares temporary files a live process holds and removes the others, spilling or not") {
  for (const bool spill : {false, true}) {
    CAPTURE(spill);
    TempDir dir;
    // 2147483646 is no process here: the old rule (remove when the PID is gone) removed both.
    const std::string live_run = dir.file(".simdex-sort-2147483646-0"),
                      stale_run = dir.file(".simdex-sort-2147483646-1");
    const std::string live_tmp = dir.file(".x.sdx.tmp-2147483646-0"),
                      stale_tmp = dir.file(".x.sdx.tmp-2147483646-1");
    for (const auto& p : {live_run, stale_run, live_tmp, stale_tmp}) touch(p);
    std::mt19937_64 rng(31);
    {
      LockHolder run_holder(live_run), tmp_holder(live_tmp);
      const BuildSummary s = build(dir.file("x.sdx"), random_pairs(rng, 20000), small_build(dir, spill));
      CHECK((s.temp_files > 0) == spill);
      CHECK(fs::exists(live_run));
      CHECK(fs::exists(live_tmp));
      CHECK(!fs::exists(stale_run));
      CHECK(!fs::exists(stale_tmp));
    }
    // Their holder is gone: the next build removes them.
    build(dir.file("x.sdx"), random_pairs(rng, 100), small_build(dir, false));
    CHECK(!fs::exists(live_run));
    CHECK(!fs::exists(live_tmp));
  }
}

TEST_CASE("a build's own temporary files are locked while it runs") {
  TempDir dir;
  writer::ScratchSpace space(dir_of(dir));
  writer::TempFile run(space);
  writer::AtomicFile out(dir.file("y.sdx"));
  for (const auto& path : {run.path(), out.temp_path()}) {
    const int fd = ::open(path.c_str(), O_RDONLY);
    REQUIRE(fd >= 0);
    CHECK(::flock(fd, LOCK_EX | LOCK_NB) != 0);
    ::close(fd);
  }
  // Other builds' cleanups: a build that sorts in the same directory, one that publishes y.sdx.
  writer::ScratchSpace other(dir_of(dir));
  {
    writer::AtomicFile other_out(dir.file("y.sdx"));
    other_out.publish();
  }
  CHECK(fs::exists(run.path()));
  CHECK(fs::exists(out.temp_path()));
}

TEST_CASE("a target that is not a regular file is refused, and left as it was") {
  TempDir dir;
  std::mt19937_64 rng(32);
  const Pairs pairs = random_pairs(rng, 500);
  const BuildOptions o = small_build(dir, false);
  auto no_temp_left = [&] {
    for (const auto& e : fs::directory_iterator(dir_of(dir)))
      CHECK(e.path().filename().string().find(".tmp-") == std::string::npos);
  };

  const std::string fifo = dir.file("fifo.sdx");
  REQUIRE(::mkfifo(fifo.c_str(), 0644) == 0);
  CHECK_THROWS_WITH_AS(build(fifo, pairs, o), doctest::Contains("not a regular file (a FIFO)"), Error);
  CHECK(fs::is_fifo(fs::symlink_status(fifo)));

  fs::create_directory(dir.file("dir.sdx"));
  CHECK_THROWS_WITH_AS(build(dir.file("dir.sdx"), pairs, o), doctest::Contains("a directory"), Error);
  CHECK(fs::is_directory(dir.file("dir.sdx")));

  // A symbolic link is refused, not followed: the link and the file it names stay as they were.
  build(dir.file("real.sdx"), pairs, o);
  const auto real_bytes = read_bytes(dir.file("real.sdx"));
  fs::create_symlink("real.sdx", dir.file("link.sdx"));
  CHECK_THROWS_WITH_AS(build(dir.file("link.sdx"), random_pairs(rng, 50), o),
                       doctest::Contains("symbolic link"), Error);
  CHECK(fs::is_symlink(fs::symlink_status(dir.file("link.sdx"))));
  CHECK(read_bytes(dir.file("real.sdx")) == real_bytes);
  no_temp_left();

  // A target that turns into a FIFO during the build is checked again before the rename.
  {
    writer::AtomicFile out(dir.file("late.sdx"));
    out.write("data", 4);
    REQUIRE(::mkfifo(dir.file("late.sdx").c_str(), 0644) == 0);
    CHECK_THROWS_WITH_AS(out.publish(), doctest::Contains("not a regular file"), Error);
  }
  CHECK(fs::is_fifo(fs::symlink_status(dir.file("late.sdx"))));
  no_temp_left();
}

TEST_CASE("a forked child's cleanup spares the temporary files of its parent's builds") {
  // The child inherits the registry of the parent's temporary files; its cleanup (a signal, the
  // Python module as an interpreter ends) would remove files the parent still writes.
  TempDir dir;
  writer::AtomicFile file(dir.file("x.sdx"));
  file.write("abc", 3);
  auto temporary_files = [&] {
    int n = 0;
    for (const auto& e : fs::directory_iterator(fs::path(dir.file("x.sdx")).parent_path()))
      n += e.path().filename().string().find(".tmp") != std::string::npos;
    return n;
  };
  REQUIRE(temporary_files() == 1);
  const pid_t child = ::fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    writer::remove_registered_temps();
    ::_exit(0);
  }
  int status = 0;
  REQUIRE(::waitpid(child, &status, 0) == child);
  CHECK(temporary_files() == 1);
}

TEST_CASE("an unpublished file is removed by the signal cleanup and when dropped, until released") {
  TempDir dir;
  auto make = [&](const std::string& name) { return member_file(dir, name); };
  // The signal cleanup (run in a forked child, as a signal's handler would: it forgets the
  // registry, so the child registers its own) removes a registered one, and a released one stays.
  const std::string by_signal = make("by-signal"), kept = make("kept");
  const pid_t child = ::fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    writer::UnpublishedFile removed(by_signal), released(kept);
    released.release();
    writer::remove_registered_temps();
    ::_exit(0);  // no destructor runs: only the cleanup removed anything
  }
  int status = 0;
  REQUIRE(::waitpid(child, &status, 0) == child);
  CHECK_FALSE(fs::exists(by_signal));
  CHECK(fs::exists(kept));
  // Dropped (an error on the way to the manifest): removed; released first: kept.
  const std::string dropped = make("dropped");
  { writer::UnpublishedFile f(dropped); }
  CHECK_FALSE(fs::exists(dropped));
  {
    writer::UnpublishedFile f(kept);
    f.release();
  }
  CHECK(fs::exists(kept));
}

TEST_CASE("a signal during a publishing step is handled after it, on the files it registered and released") {
  // As a set's manifest is renamed: the new member released, the member it drops registered. A
  // SIGTERM sent within the step (handled on another thread, which waits for the step) removes the
  // dropped member and keeps the new one: registered after the rename, or released before it, a
  // signal in between left one of them behind or removed what the manifest names.
  TempDir dir;
  const std::string added = member_file(dir, "added"), dropped = member_file(dir, "dropped");
  const pid_t child = ::fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    ::signal(SIGTERM, SIG_DFL);  // doctest's handler out: the cleanup takes only a default one
    simdex::remove_temporary_files_on_signals();
    std::thread other([] { ::pause(); });  // where the handler runs while the step blocks the signal
    std::deque<writer::UnpublishedFile> files;
    files.emplace_back(added);
    writer::without_cleanup_signals([&] {
      ::kill(::getpid(), SIGTERM);
      ::usleep(50000);  // the handler is waiting for the step by now
      files.front().release();
      files.emplace_back(dropped);
    });
    ::pause();  // the handler ends the process
    ::_exit(3);
  }
  int status = 0;
  REQUIRE(::waitpid(child, &status, 0) == child);
  CHECK(WIFSIGNALED(status));
  CHECK((WIFSIGNALED(status) && WTERMSIG(status) == SIGTERM));
  CHECK(fs::exists(added));
  CHECK_FALSE(fs::exists(dropped));
}

TEST_CASE(
    "a scratch directory goes with its files when dropped or on a signal, and after a kill with the next "
    "one") {
  TempDir dir;
  const std::string parent = dir_of(dir);
  auto scratch_directories = [&] {
    int n = 0;
    for (const auto& e : fs::directory_iterator(parent))
      n += e.path().filename().string().rfind(".scratch-", 0) == 0;
    return n;
  };
  {
    writer::ScratchDirectory scratch(parent, ".scratch-");
    CHECK(fs::is_directory(scratch.path()));
    CHECK(fs::path(scratch.path()).parent_path() == fs::path(parent));
    touch(scratch.path() + "/published.sdx");
    // Another process's cleanup leaves a live one alone (its lock is held), as this process's does.
    writer::remove_unlocked_directories(parent, ".scratch-");
    CHECK(fs::exists(scratch.path() + "/published.sdx"));
    const pid_t child = ::fork();
    REQUIRE(child >= 0);
    if (child == 0) {
      writer::remove_unlocked_directories(parent, ".scratch-");
      ::_exit(0);
    }
    int status = 0;
    REQUIRE(::waitpid(child, &status, 0) == child);
    CHECK(fs::exists(scratch.path() + "/published.sdx"));
  }
  CHECK(scratch_directories() == 0);  // dropped: with its file
  // A signal's cleanup (in a child, as a handler would run it): the files registered in it first,
  // then the directory.
  pid_t child = ::fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    writer::ScratchDirectory scratch(parent, ".scratch-");
    touch(scratch.path() + "/index.sdx");
    writer::UnpublishedFile published(scratch.path() + "/index.sdx");
    writer::remove_registered_temps();
    ::_exit(0);  // no destructor runs
  }
  int status = 0;
  REQUIRE(::waitpid(child, &status, 0) == child);
  CHECK(scratch_directories() == 0);
  // Killed (it ends holding a file the registry does not name): the next one removes the lot.
  child = ::fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    writer::ScratchDirectory scratch(parent, ".scratch-");
    touch(scratch.path() + "/..index.sdx.tmp-1-0");
    ::_exit(0);
  }
  REQUIRE(::waitpid(child, &status, 0) == child);
  REQUIRE(scratch_directories() == 1);
  {
    writer::ScratchDirectory next(parent, ".scratch-");
    CHECK(scratch_directories() == 1);  // the killed one's went, this one is there
  }
  CHECK(scratch_directories() == 0);
  // A file of the same prefix is no scratch directory, nor one whose name mkdtemp did not make:
  // left alone.
  touch(parent + "/.scratch-file");
  fs::create_directory(parent + "/.scratch-mine");
  fs::create_directory(parent + "/.scratch-userdir");
  touch(parent + "/.scratch-userdir/notes");
  writer::remove_unlocked_directories(parent, ".scratch-");
  CHECK(fs::exists(parent + "/.scratch-file"));
  CHECK(fs::exists(parent + "/.scratch-mine"));
  CHECK(fs::exists(parent + "/.scratch-userdir/notes"));
}

TEST_CASE("a temporary directory too long a path for the files made in it is refused when chosen") {
  const std::string deep = "/tmp/" + std::string(PATH_MAX - 100, 'd');
  try {
    writer::require_room_for_temporary_paths(deep);
    FAIL("a path of " << deep.size() << " bytes was taken");
  } catch (const Error& e) {
    CHECK(e.os_error() == ENAMETOOLONG);
    CHECK(std::string(e.what()).find("limit on a path") != std::string::npos);
  }
  CHECK_NOTHROW(writer::require_room_for_temporary_paths("/tmp/" + std::string(PATH_MAX - 200, 'd')));
  // The check comes before any other: the directory does not have to exist for the message.
  CHECK_THROWS_WITH_AS(writer::ScratchDirectory(deep, ".scratch-"), doctest::Contains("limit on a path"),
                       Error);
}
