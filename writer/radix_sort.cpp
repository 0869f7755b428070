#include "writer/radix_sort.h"

#include <algorithm>
#include <array>
#include <cstring>
#include <vector>

namespace simdex::writer {

namespace {
constexpr unsigned kPasses = 6;
constexpr std::array<unsigned, kPasses> kShift = {0, 11, 22, 33, 44, 54};
constexpr std::array<unsigned, kPasses> kBits = {11, 11, 11, 11, 10, 10};
constexpr std::size_t kBuckets = 2048;
}  // namespace

void radix_sort(std::span<uint64_t> keys, std::span<uint64_t> scratch) {
  const std::size_t n = keys.size();
  if (n < 256) {
    std::sort(keys.begin(), keys.end());
    return;
  }
  std::vector<std::array<uint64_t, kBuckets>> count(kPasses);
  for (auto& c : count) c.fill(0);
  for (uint64_t k : keys)
    for (unsigned p = 0; p < kPasses; ++p) ++count[p][(k >> kShift[p]) & ((uint64_t{1} << kBits[p]) - 1)];
  uint64_t* from = keys.data();
  uint64_t* to = scratch.data();
  for (unsigned p = 0; p < kPasses; ++p) {
    auto& c = count[p];
    const std::size_t buckets = std::size_t{1} << kBits[p];
    if (std::any_of(c.begin(), c.begin() + buckets, [n](uint64_t x) { return x == n; }))
      continue;  // one digit
    uint64_t sum = 0;
    for (std::size_t b = 0; b < buckets; ++b) {
      const uint64_t x = c[b];
      c[b] = sum;
      sum += x;
    }
    const unsigned shift = kShift[p];
    const uint64_t mask = buckets - 1;
    for (std::size_t i = 0; i < n; ++i) {
      const uint64_t k = from[i];
      to[c[(k >> shift) & mask]++] = k;
    }
    std::swap(from, to);
  }
  if (from != keys.data()) std::memcpy(keys.data(), from, n * sizeof(uint64_t));
}

}  // namespace simdex::writer
