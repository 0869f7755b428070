// HugeBuffer: values survive every way it grows (malloc's realloc, the move into a mapping of its
// own, mremap of a mapping), and appends and moves keep them. populate: pages faulted in, values kept.
#include "format/huge_pages.h"

#include <doctest/doctest.h>
#include <sys/mman.h>

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <vector>

#include "format/populate.h"

using simdex::format::HugeBuffer;
namespace huge_pages = simdex::format::huge_pages;

TEST_CASE("HugeBuffer keeps its values as it grows past the mapping threshold and by mremap") {
  HugeBuffer<uint64_t> b;
  const std::size_t n = 3 * huge_pages::kThreshold / sizeof(uint64_t) + 12345;  // three remaps at least
  for (std::size_t i = 0; i < n; ++i) b.push_back(i * 0x9e3779b97f4a7c15);
  REQUIRE(b.size() == n);
  CHECK(b.capacity() >= n);
  bool same = true;
  for (std::size_t i = 0; i < n; ++i) same = same && b[i] == i * 0x9e3779b97f4a7c15;
  CHECK(same);
  // A mapping of its own (a remap may move it off a huge page's start, never off a page's).
  CHECK(reinterpret_cast<std::uintptr_t>(b.data()) % 4096 == 0);

  HugeBuffer<uint64_t> moved(std::move(b));
  CHECK(b.empty());
  CHECK(b.data() == nullptr);
  CHECK(moved.size() == n);
  CHECK(moved[n - 1] == (n - 1) * 0x9e3779b97f4a7c15);
  moved.clear();
  CHECK(moved.empty());
  CHECK(moved.capacity() >= n);  // clear keeps the memory for the next fill
}

TEST_CASE("HugeBuffer: append, resize, reserve") {
  HugeBuffer<uint8_t> bytes;
  std::vector<uint8_t> expected;
  std::vector<uint8_t> chunk(100000);
  for (int round = 0; round < 100; ++round) {  // 10 MB: from malloc into a mapping, then remapped
    std::iota(chunk.begin(), chunk.end(), static_cast<uint8_t>(round));
    bytes.append(chunk.data(), chunk.size());
    expected.insert(expected.end(), chunk.begin(), chunk.end());
  }
  REQUIRE(bytes.size() == expected.size());
  CHECK(std::equal(bytes.begin(), bytes.end(), expected.begin()));
  bytes.append(chunk.data(), 0);
  CHECK(bytes.size() == expected.size());
  HugeBuffer<uint8_t> none;
  none.append(chunk.data(), 0);  // nothing to copy into no memory
  CHECK(none.empty());

  HugeBuffer<uint64_t> a(1000);  // uninitialized values, as many as asked
  CHECK(a.size() == 1000);
  for (std::size_t i = 0; i < a.size(); ++i) a[i] = i;
  a.resize(huge_pages::kThreshold);  // into a mapping: the first values copied
  CHECK(a.size() == huge_pages::kThreshold);
  CHECK(a[999] == 999);
  a.reserve(10);  // never shrinks
  CHECK(a.capacity() >= huge_pages::kThreshold);
  HugeBuffer<uint64_t> empty(0);
  CHECK(empty.data() == nullptr);
  CHECK(empty.span().empty());
}

namespace {
// Pages of [p, p + bytes) resident in memory (mincore), p page-aligned.
std::size_t resident_pages(const void* p, std::size_t bytes) {
  const std::size_t pages = (bytes + 4095) / 4096;
  std::vector<unsigned char> in(pages);
  REQUIRE(::mincore(const_cast<void*>(p), bytes, in.data()) == 0);
  return static_cast<std::size_t>(std::count_if(in.begin(), in.end(), [](unsigned char c) { return c & 1; }));
}
}  // namespace

TEST_CASE("populate faults a range in on several threads and keeps what it holds") {
  const std::size_t values = (std::size_t{64} << 20) / sizeof(uint64_t);  // 64 MiB
  HugeBuffer<uint64_t> b;
  b.reserve(values);
  const std::size_t written = 1000;  // the range starts inside a page that holds values
  for (std::size_t i = 0; i < written; ++i) b.push_back(i * 7 + 1);
  uint64_t* rest = b.data() + written;
  const std::size_t rest_bytes = (values - written) * sizeof(uint64_t);
  auto* first_full_page =
      reinterpret_cast<uint64_t*>((reinterpret_cast<std::uintptr_t>(rest) + 4095) / 4096 * 4096);
  const auto end = reinterpret_cast<std::uintptr_t>(b.data() + values) / 4096 * 4096;
  const std::size_t full_bytes = end - reinterpret_cast<std::uintptr_t>(first_full_page);

  simdex::format::populate(rest, rest_bytes, 1);  // one thread: left to fault in as written
  CHECK(resident_pages(first_full_page, full_bytes) < full_bytes / 4096 / 2);

  simdex::format::populate(rest, rest_bytes, 4);
  CHECK(resident_pages(first_full_page, full_bytes) == full_bytes / 4096);
  bool kept = true;
  for (std::size_t i = 0; i < written; ++i) kept = kept && b[i] == i * 7 + 1;
  CHECK(kept);
  b.resize(values);  // the populated values are writable
  for (std::size_t i = written; i < values; ++i) b[i] = i;
  CHECK(b[values - 1] == values - 1);
  simdex::format::populate(nullptr, 0, 4);  // nothing to do
}
