#include "writer/radix_sort.h"

#include <algorithm>
#include <array>
#include <bit>
#include <vector>

#include "format/run_tasks.h"

namespace simdex::writer {

namespace {

uint64_t key_of(uint64_t k) { return k; }
uint64_t key_of(const Pair& p) { return p.key; }

constexpr unsigned kMaxDigitBits = 11;  // 2,048 buckets: as many write streams as a pass sustains
constexpr std::size_t kInsertion = 32;  // ranges this short: insertion sort
constexpr std::size_t kParallelFrom = std::size_t{1} << 16;  // a first pass on threads from here

// The width of the next digit of a range of n keys: about n/2 buckets (an in-cache pass over a few
// thousand keys is not worth 2,048 counters), at most kMaxDigitBits, never more than the bits left.
unsigned digit_bits(std::size_t n, unsigned bits_left) {
  const auto wanted = static_cast<unsigned>(std::bit_width(n / 2));
  return std::min({std::max(wanted, 4u), kMaxDigitBits, bits_left});
}

template <typename T>
void insertion_sort(T* v, std::size_t n) {
  for (std::size_t i = 1; i < n; ++i) {
    const T x = v[i];
    std::size_t j = i;
    for (; j > 0 && x < v[j - 1]; --j) v[j] = v[j - 1];
    v[j] = x;
  }
}

// Sorts the n values at `data`, whose keys agree in every bit from bit `bits` up; the sorted values
// end in `data` when in_data, else in `other` (both ranges hold n values; the other one's contents
// are lost).
template <typename T>
void sort_range(T* data, T* other, std::size_t n, unsigned bits, bool in_data) {
  std::array<std::size_t, std::size_t{1} << kMaxDigitBits> end;
  unsigned shift = 0;
  uint64_t mask = 0;
  for (;;) {
    if (n <= kInsertion || bits == 0) {
      // Keys all equal when bits == 0: pairs still go by id.
      if (n <= kInsertion)
        insertion_sort(data, n);
      else
        std::sort(data, data + n);
      if (!in_data) std::copy(data, data + n, other);
      return;
    }
    const unsigned width = digit_bits(n, bits);
    shift = bits - width;
    mask = (uint64_t{1} << width) - 1;
    std::fill(end.begin(), end.begin() + (std::size_t{1} << width), 0);
    for (std::size_t i = 0; i < n; ++i) ++end[(key_of(data[i]) >> shift) & mask];
    if (end[(key_of(data[0]) >> shift) & mask] < n) break;
    bits = shift;  // one digit for every key: on to the next
  }
  const std::size_t buckets = std::size_t{1} << (bits - shift);
  std::size_t sum = 0, largest = 0;
  for (std::size_t b = 0; b < buckets; ++b) {
    const std::size_t count = end[b];
    end[b] = sum;  // the bucket's next free slot while scattering; its end afterwards
    sum += count;
    largest = std::max(largest, count);
  }
  for (std::size_t i = 0; i < n; ++i) {
    const T x = data[i];
    other[end[(key_of(x) >> shift) & mask]++] = x;
  }
  // A short bucket, now in `other`: sorted there, and copied back when the result belongs in `data`.
  auto leaf = [&](std::size_t begin, std::size_t count) {
    insertion_sort(other + begin, count);
    if (in_data) std::copy(other + begin, other + begin + count, data + begin);
  };
  if (largest <= kInsertion) {
    // Every bucket short (the last digit of random keys): one insertion sort over the whole range,
    // whose values never pass their bucket's bounds, costs less than a call per bucket.
    leaf(0, n);
    return;
  }
  std::size_t begin = 0;
  for (std::size_t b = 0; b < buckets; ++b) {
    const std::size_t count = end[b] - begin;
    if (count <= kInsertion)
      leaf(begin, count);
    else
      sort_range(other + begin, data + begin, count, shift, !in_data);
    begin = end[b];
  }
}

// The number of low bits below which some two keys differ (0 when all are equal): the bits a sort
// must look at.
template <typename T>
unsigned differing_bits(const T* v, std::size_t n, unsigned threads) {
  std::vector<uint64_t> any(threads, 0), all(threads, ~uint64_t{0});
  format::run_tasks(threads, threads, [&](std::size_t part, unsigned, auto&) {
    uint64_t o = 0, a = ~uint64_t{0};
    for (std::size_t i = n * part / threads, e = n * (part + 1) / threads; i < e; ++i) {
      o |= key_of(v[i]);
      a &= key_of(v[i]);
    }
    any[part] = o;
    all[part] = a;
  });
  uint64_t o = 0, a = ~uint64_t{0};
  for (unsigned p = 0; p < threads; ++p) {
    o |= any[p];
    a &= all[p];
  }
  return static_cast<unsigned>(std::bit_width(o ^ a));
}

template <typename T>
void sort_all(std::span<T> v, std::span<T> scratch, unsigned threads) {
  const std::size_t n = v.size();
  threads = std::max(1u, threads);
  if (n < kParallelFrom) threads = 1;
  if (n <= kInsertion) {
    insertion_sort(v.data(), n);
    return;
  }
  const unsigned bits = differing_bits(v.data(), n, threads);
  if (threads == 1 || bits == 0) {
    sort_range(v.data(), scratch.data(), n, bits, true);
    return;
  }
  // The first pass on threads: each counts its part's digits, then scatters its part to where its
  // buckets' slots start (after the same bucket of the parts before it: a stable pass, so the
  // result does not depend on the thread count); then the buckets are sorted as tasks.
  const unsigned width = std::min(kMaxDigitBits, bits), shift = bits - width;
  const uint64_t mask = (uint64_t{1} << width) - 1;
  const std::size_t buckets = std::size_t{1} << width;
  std::vector<std::vector<std::size_t>> next(threads, std::vector<std::size_t>(buckets, 0));
  auto part_range = [&](std::size_t part) { return std::pair{n * part / threads, n * (part + 1) / threads}; };
  format::run_tasks(threads, threads, [&](std::size_t part, unsigned, auto&) {
    auto& count = next[part];
    const auto [b, e] = part_range(part);
    for (std::size_t i = b; i < e; ++i) ++count[(key_of(v[i]) >> shift) & mask];
  });
  std::vector<std::size_t> start(buckets + 1, 0);
  std::size_t sum = 0;
  for (std::size_t b = 0; b < buckets; ++b) {
    start[b] = sum;
    for (unsigned part = 0; part < threads; ++part) {
      const std::size_t count = next[part][b];
      next[part][b] = sum;
      sum += count;
    }
  }
  start[buckets] = n;
  format::run_tasks(threads, threads, [&](std::size_t part, unsigned, auto&) {
    auto& slot = next[part];
    const auto [b, e] = part_range(part);
    for (std::size_t i = b; i < e; ++i) {
      const T x = v[i];
      scratch[slot[(key_of(x) >> shift) & mask]++] = x;
    }
  });
  format::run_tasks(threads, buckets, [&](std::size_t b, unsigned, auto&) {
    if (start[b + 1] > start[b])
      sort_range(scratch.data() + start[b], v.data() + start[b], start[b + 1] - start[b], shift, false);
  });
}

}  // namespace

void radix_sort(std::span<uint64_t> keys, std::span<uint64_t> scratch, unsigned threads) {
  sort_all(keys, scratch, threads);
}
void radix_sort(std::span<Pair> pairs, std::span<Pair> scratch, unsigned threads) {
  sort_all(pairs, scratch, threads);
}

}  // namespace simdex::writer
