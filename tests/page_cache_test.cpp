// Index files cached in 2 MiB folios (format/page_cache.h): AtomicFile still writes exactly the
// bytes it is given, however the writes come (sequential, at an offset, from several threads, large
// and small) and under a file size limit; where this kernel and file system map a file's 2 MiB
// folios with 2 MiB pages, a file AtomicFile wrote is mapped that way, and so is a file read by
// OpenOptions::preload = all.
#include "format/page_cache.h"

#include <doctest/doctest.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <fstream>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "simdex/index.h"
#include "test_util.h"
#include "writer/atomic_file.h"

using namespace simdex;
using namespace simdex::test;

namespace {

constexpr std::size_t kMiB = std::size_t{1} << 20;

std::vector<uint8_t> random_bytes(std::size_t n, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<uint8_t> v(n);
  for (auto& b : v) b = static_cast<uint8_t>(rng());
  return v;
}

// The file's bytes written the ways an index writer writes them: a placeholder header, sequential
// writes of odd sizes (one larger than the write buffer), a gap skipped for sections that threads
// write (one of them large enough for a mapped write), more sequential bytes, the header last.
void write_mixed(writer::AtomicFile& out, const std::vector<uint8_t>& bytes) {
  const std::size_t header = 96, gap_from = 3 * kMiB + 777, gap_to = gap_from + 5 * kMiB + 4321;
  const std::vector<uint8_t> zeros(header, 0);
  out.write(zeros.data(), zeros.size());
  std::mt19937_64 rng(5);
  for (std::size_t at = header; at < gap_from;) {
    const std::size_t n = std::min<std::size_t>(gap_from - at, at < kMiB ? 1 + rng() % 70000 : 1536 * 1024);
    out.write(bytes.data() + at, n);
    at += n;
  }
  out.skip_to(gap_to);
  // Sections of the gap, from three threads: 4.5 MiB (mapped), then two small ones.
  const std::size_t cut1 = gap_from + 4 * kMiB + kMiB / 2, cut2 = cut1 + 300000;
  std::vector<std::thread> threads;
  for (const auto& section : {std::pair{gap_from, cut1}, std::pair{cut1, cut2}, std::pair{cut2, gap_to}})
    threads.emplace_back([&out, &bytes, from = section.first, to = section.second] {
      out.write_parallel(from, bytes.data() + from, to - from);
    });
  for (auto& t : threads) t.join();
  out.write(bytes.data() + gap_to, bytes.size() - gap_to);
  out.write_at(0, bytes.data(), header);
}

// The bytes of `path`'s mapping in this process that 2 MiB page table entries map
// (FilePmdMapped in /proc/self/smaps), or 0.
std::size_t pmd_mapped_bytes(const std::string& path) {
  std::ifstream smaps("/proc/self/smaps");
  std::string line;
  bool ours = false;
  while (std::getline(smaps, line)) {
    if (line.find(' ') != std::string::npos && line.find('-') < line.find(' ') &&
        line.find(':') > line.find(' '))  // a mapping's first line: "start-end perms ... path"
      ours = line.size() >= path.size() && line.compare(line.size() - path.size(), path.size(), path) == 0;
    else if (ours && line.rfind("FilePmdMapped:", 0) == 0)
      return std::stoull(line.substr(14)) * 1024;
  }
  return 0;
}

// FilePmdMapped of a mapping of the whole of `path`, made and populated here.
std::size_t pmd_mapped_when_mapped(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY);
  REQUIRE(fd >= 0);
  const auto size = static_cast<std::size_t>(::lseek(fd, 0, SEEK_END));
  void* map = ::mmap(nullptr, size, PROT_READ, MAP_SHARED, fd, 0);
  REQUIRE(map != MAP_FAILED);
#ifdef MADV_POPULATE_READ
  ::madvise(map, size, MADV_POPULATE_READ);
#endif
  const std::size_t pmd = pmd_mapped_bytes(path);
  ::munmap(map, size);
  ::close(fd);
  return pmd;
}

// The file's pages dropped from the page cache (they are clean once fsynced).
void drop_cached(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY);
  REQUIRE(fd >= 0);
  ::fdatasync(fd);
  ::posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
  ::close(fd);
}

// Whether this kernel and the file system of `dir` map a file cached by cache_in_huge_pages with
// 2 MiB pages: a file of 8 MiB written by pwrite, dropped from the cache, then cached that way
// (nothing is done where page_cache::huge_page_bytes says no).
bool huge_folios_supported(const TempDir& dir) {
  const std::string path = dir.file("probe.bin");
  {
    const auto bytes = random_bytes(8 * kMiB, 1);
    std::ofstream(path, std::ios::binary).write(reinterpret_cast<const char*>(bytes.data()), bytes.size());
  }
  drop_cached(path);
  const int fd = ::open(path.c_str(), O_RDONLY);
  REQUIRE(fd >= 0);
  format::page_cache::cache_in_huge_pages(fd, 0, 8 * kMiB);
  ::close(fd);
  return pmd_mapped_when_mapped(path) > 0;
}

}  // namespace

TEST_CASE("AtomicFile writes exactly the bytes given, in any order, from any thread, whatever size") {
  TempDir dir;
  // Sizes around the 2 MiB regions: just below, at, and past a multiple.
  // Three writers at once: the large section through a mapping; expected as one: by pwrite.
  for (const unsigned writers : {3u, 1u}) {
    for (const std::size_t size : {12 * kMiB - 1, 12 * kMiB, 12 * kMiB + 4097, 9 * kMiB + 12345}) {
      CAPTURE(writers);
      CAPTURE(size);
      const auto bytes = random_bytes(size, size);
      const std::string path = dir.file("mixed.bin");
      writer::AtomicFile out(path);
      out.expect_writers(writers);
      write_mixed(out, bytes);
      out.publish();
      CHECK(read_bytes(path) == bytes);  // size included: nothing added past the last byte
    }
  }
  SUBCASE("a small file") {
    const auto bytes = random_bytes(5000, 3);
    writer::AtomicFile out(dir.file("small.bin"));
    out.write(bytes.data(), bytes.size());
    out.publish();
    CHECK(read_bytes(dir.file("small.bin")) == bytes);
  }
}

TEST_CASE("AtomicFile's direct writes: exactly the bytes given, from any thread, at any offset and size") {
  // Pieces of a table phase, in a shuffled order on four threads: tiny ones within a page, ones
  // crossing one or two page boundaries, ones larger than the 4 MiB copy buffer; the pages they
  // share are written when the direct writes end: by end_direct_writes, or by the first write
  // through the cache after them. Then buffered bytes after them and the header over the start, as
  // an index writer does; the file is read back through the cache and from the disk.
  TempDir dir;
  const std::size_t header = 96, from = 5000, to = 15 * kMiB + 333;
  const auto bytes = random_bytes(to + 70000, 17);
  std::vector<uint8_t> expected = bytes;
  std::fill(expected.begin() + header, expected.begin() + from, 0);
  std::mt19937_64 rng(21);
  std::vector<std::pair<std::size_t, std::size_t>> pieces;
  for (std::size_t at = from; at < to;) {
    const std::size_t kind = rng() % 4;
    const std::size_t n = std::min(to - at, kind == 0   ? 1 + rng() % 3000
                                            : kind == 1 ? 4096 + rng() % 9000
                                            : kind == 2 ? 100000 + rng() % 900000
                                                        : 4 * kMiB + rng() % kMiB);
    pieces.emplace_back(at, n);
    at += n;
  }
  for (const bool explicit_end : {true, false}) {
    CAPTURE(explicit_end);
    std::shuffle(pieces.begin(), pieces.end(), rng);
    const std::string path = dir.file("direct.bin");
    writer::AtomicFile out(path);
    const std::vector<uint8_t> zeros(from, 0);
    out.write(zeros.data(), zeros.size());
    out.skip_to(from);
    if (!out.begin_direct_writes()) MESSAGE("this file system writes nothing directly: through the cache");
    std::atomic<std::size_t> next{0};
    std::vector<std::thread> threads;
    for (int t = 0; t < 4; ++t)
      threads.emplace_back([&] {
        for (std::size_t i; (i = next++) < pieces.size();)
          out.write_parallel(pieces[i].first, bytes.data() + pieces[i].first, pieces[i].second);
      });
    for (auto& t : threads) t.join();
    if (explicit_end) out.end_direct_writes();
    out.skip_to(to);
    out.write(bytes.data() + to, bytes.size() - to);
    out.write_at(0, bytes.data(), header);
    out.publish();
    CHECK(read_bytes(path) == expected);
    drop_cached(path);
    CHECK(read_bytes(path) == expected);
  }
  writer::AtomicFile scratch(dir.file("scratch.bin"), writer::Durability::scratch);
  CHECK_FALSE(scratch.begin_direct_writes());  // read back by this process: never written directly
}

TEST_CASE("a file size limit just above the file's size: written whole, not killed by SIGXFSZ") {
  // The 2 MiB regions are cached through an extension of the file beyond the bytes written so far;
  // past RLIMIT_FSIZE that would end the process (the signal left at its default here).
  TempDir dir;
  const auto bytes = random_bytes(9 * kMiB + 12345, 11);
  rlimit old{};
  REQUIRE(::getrlimit(RLIMIT_FSIZE, &old) == 0);
  rlimit bound = old;
  bound.rlim_cur = bytes.size();
  REQUIRE(::setrlimit(RLIMIT_FSIZE, &bound) == 0);
  {
    writer::AtomicFile out(dir.file("limited.bin"));
    write_mixed(out, bytes);
    out.publish();
  }
  REQUIRE(::setrlimit(RLIMIT_FSIZE, &old) == 0);
  CHECK(read_bytes(dir.file("limited.bin")) == bytes);
}

TEST_CASE("tmpfs files are left to their mount's folios: no region of one is populated") {
  // Populating a tmpfs file's holes allocates and zeroes each 4 KiB page before the write that
  // replaces it (a 100M build on 16 threads to /dev/shm took 20-50% longer that way).
  struct statfs fs {};
  if (::statfs("/dev/shm", &fs) != 0 || static_cast<unsigned long>(fs.f_type) != 0x01021994UL) {
    MESSAGE("no tmpfs at /dev/shm: nothing to check");
    return;
  }
  char path[] = "/dev/shm/simdex-page-cache-XXXXXX";
  const int fd = ::mkstemp(path);
  if (fd < 0) {
    MESSAGE("cannot create a file in /dev/shm: nothing to check");
    return;
  }
  ::unlink(path);
  CHECK(format::page_cache::huge_page_bytes(fd) == 0);
  REQUIRE(::ftruncate(fd, 4 * kMiB) == 0);
  format::page_cache::cache_in_huge_pages(fd, 0, 4 * kMiB);
  struct stat st {};
  REQUIRE(::fstat(fd, &st) == 0);
  CHECK(st.st_blocks == 0);  // the hole stays a hole
  ::close(fd);
}

TEST_CASE("index files are cached in 2 MiB folios: written by simdex, or read by preload = all") {
  TempDir dir;
  if (!huge_folios_supported(dir)) {
    MESSAGE("this kernel or file system maps no file with 2 MiB pages: nothing to check");
    return;
  }
  // Written as an index writer writes (write_mixed): its large section through a mapping (three
  // writers), or by pwrite (one), which may leave the 2 MiB folios of the regions it covers whole
  // to the kernel's write path (page_cache::writes_cache_huge_folios).
  for (const unsigned writers : {3u, 1u}) {
    CAPTURE(writers);
    const auto bytes = random_bytes(12 * kMiB + 4097, writers);
    const std::string mixed = dir.file("mixed.bin");
    writer::AtomicFile out(mixed);
    out.expect_writers(writers);
    write_mixed(out, bytes);
    out.publish();
    CHECK(pmd_mapped_when_mapped(mixed) >= 10 * kMiB);  // all but the last, partial region and one
  }

  std::mt19937_64 rng(23);
  const Pairs pairs = random_pairs(rng, 200000);  // a file of about 15 MB
  const std::string path = dir.file("index.sdx");
  const uint64_t size = build(path, pairs, "paper-10", 256).file_bytes;
  REQUIRE(size > 8 * kMiB);
  // All but the last, partial 2 MiB region (and the regions' rounding), and one region more: under
  // memory pressure (a compiler beside the test) the kernel may find no free 2 MiB page for one, as
  // it did once in ctest -j2 (10 of 12 MiB); a writer that left the file in 4 KiB pages maps none.
  const uint64_t whole = size / (2 * kMiB) * (2 * kMiB);
  CHECK(pmd_mapped_when_mapped(path) >= whole - 4 * kMiB);

  // The same file dropped from the page cache: read by its probes, it would come in 4 KiB folios;
  // preload = all reads it in 2 MiB ones, which the index's own mapping maps with 2 MiB pages
  // (all but the region of the header, which open read first, and the last).
  drop_cached(path);
  OpenOptions o;
  o.preload = OpenOptions::Preload::all;
  const Index index = Index::open(path, o);
  CHECK(pmd_mapped_bytes(path) >= whole - 4 * kMiB);
  CHECK(index.query(pairs[0].first, 0).size() >= 1);
}
