// HugeBuffer: values survive every way it grows (malloc's realloc, the move into a mapping of its
// own, mremap of a mapping), and appends and moves keep them.
#include "format/huge_pages.h"

#include <doctest/doctest.h>

#include <cstdint>
#include <numeric>
#include <vector>

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
