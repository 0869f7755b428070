#include "writer/radix_sort.h"

#include <algorithm>
#include <array>
#include <atomic>
#include <bit>
#include <memory>
#include <vector>

#include "format/run_tasks.h"

namespace simdex::writer {

namespace {

uint64_t key_of(uint64_t k) { return k; }
uint64_t key_of(const Pair& p) { return p.key; }

// A pass through memory scatters to at most 1,024 buckets: as many write streams as it sustains
// (2,048 measured slower). A pass over a range that fits the caches scatters to up to 16,384, so
// that the last pass leaves about one key a bucket: a random 30M-key table's buckets of 29,000 keys
// took two passes and an insertion sort of 7-key runs, whose branches the CPU cannot predict.
constexpr unsigned kMaxDigitBits = 10;
constexpr unsigned kMaxCachedDigitBits = 14;
constexpr std::size_t kCachedBytes = std::size_t{1} << 20;
constexpr std::size_t kInsertion = 32;                       // ranges this short: insertion sort
constexpr std::size_t kParallelFrom = std::size_t{1} << 16;  // a first pass on threads from here

// The counters of the cached passes nested in one sort: a pass of 2^w counters takes w bits of the
// key's 64, so they add up to at most four passes of 2^14 and one of 2^8.
constexpr std::size_t kCachedCounters =
    (64 / kMaxCachedDigitBits << kMaxCachedDigitBits) + (std::size_t{1} << 64 % kMaxCachedDigitBits);
using CachedCounters = std::unique_ptr<uint32_t[]>;
CachedCounters cached_counters() { return std::make_unique_for_overwrite<uint32_t[]>(kCachedCounters); }

// The width of the next digit of a range of n keys: about n buckets, so that the range's last pass
// leaves about one key a bucket, at most the pass's limit, never more than the bits left, at least
// 4 bits (fewer buckets are not worth a pass). A cached range that one pass would leave at more than
// two keys a bucket takes two (or more) even passes instead: 100,000 keys, one pass of 2^14 buckets
// of six keys and their insertion sort, cost 1.6x two passes of 2^9 and 2^8.
unsigned digit_bits(std::size_t n, unsigned max_bits, unsigned bits_left, bool cached) {
  auto wanted = static_cast<unsigned>(std::bit_width(n));
  if (cached && wanted > max_bits + 1) {
    const unsigned passes = (wanted + max_bits - 1) / max_bits;
    wanted = (wanted + passes - 1) / passes;
  }
  return std::min({std::max(wanted, 4u), max_bits, bits_left});
}

// The sort's innermost loops start where their function does: aligned, their place in the cache
// lines (and a jump's place across a 32-byte boundary, which some Intel cores pay for) no longer
// moves with unrelated code. (Unaligned, insertion_sort took 25-40% more samples of a 30M build.)
#define SIMDEX_HOT_LOOPS [[gnu::aligned(64)]]

template <typename T>
SIMDEX_HOT_LOOPS void insertion_sort(T* v, std::size_t n) {
  for (std::size_t i = 1; i < n; ++i) {
    const T x = v[i];
    std::size_t j = i;
    for (; j > 0 && x < v[j - 1]; --j) v[j] = v[j - 1];
    v[j] = x;
  }
}

template <typename T>
SIMDEX_HOT_LOOPS void sort_range(T* data, T* other, std::size_t n, unsigned bits, bool in_data,
                                 uint32_t* cached);

// One pass of sort_range with `end` (room for 2^max_bits counters) as its counters, then the sort
// of each bucket (a short range, or one with no bits left, sorted as it is). `cached`: the free
// cached counters, from `end` on when end_is_cached (the buckets' sorts get those past its pass's).
template <typename T, typename Count>
void scatter_and_recurse(T* data, T* other, std::size_t n, unsigned bits, bool in_data, Count* end,
                         unsigned max_bits, uint32_t* cached, bool end_is_cached) {
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
    const unsigned width = digit_bits(n, max_bits, bits, end_is_cached);
    shift = bits - width;
    mask = (uint64_t{1} << width) - 1;
    std::fill(end, end + (std::size_t{1} << width), Count{0});
    for (std::size_t i = 0; i < n; ++i) ++end[(key_of(data[i]) >> shift) & mask];
    if (end[(key_of(data[0]) >> shift) & mask] < n) break;
    bits = shift;  // one digit for every key: on to the next
  }
  const std::size_t buckets = std::size_t{1} << (bits - shift);
  if (end_is_cached) cached += buckets;
  Count sum = 0, largest = 0;
  for (std::size_t b = 0; b < buckets; ++b) {
    const Count count = end[b];
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
      sort_range(other + begin, data + begin, count, shift, !in_data, cached);
    begin = end[b];
  }
}

// Sorts the n values at `data`, whose keys agree in every bit from bit `bits` up; the sorted values
// end in `data` when in_data, else in `other` (both ranges hold n values; the other one's contents
// are lost). `cached` has room for the counters of the cached passes below this one.
template <typename T>
SIMDEX_HOT_LOOPS void sort_range(T* data, T* other, std::size_t n, unsigned bits, bool in_data,
                                 uint32_t* cached) {
  if (n * sizeof(T) <= kCachedBytes) {
    scatter_and_recurse(data, other, n, bits, in_data, cached, kMaxCachedDigitBits, cached, true);
  } else {
    std::array<std::size_t, std::size_t{1} << kMaxDigitBits> end;  // counts past 2^32
    scatter_and_recurse(data, other, n, bits, in_data, end.data(), kMaxDigitBits, cached, false);
  }
}

// The number of low bits below which some two keys differ (0 when all are equal): the bits a sort
// must look at.
template <typename T>
unsigned differing_bits(const T* v, std::size_t n, unsigned parts, format::TaskPool& pool) {
  std::vector<uint64_t> any(parts, 0), all(parts, ~uint64_t{0});
  pool.run(parts, [&](std::size_t part, unsigned, auto&) {
    uint64_t o = 0, a = ~uint64_t{0};
    for (auto [i, e] = format::part_range(n, part, parts); i < e; ++i) {
      o |= key_of(v[i]);
      a &= key_of(v[i]);
    }
    any[part] = o;
    all[part] = a;
  });
  uint64_t o = 0, a = ~uint64_t{0};
  for (unsigned p = 0; p < parts; ++p) {
    o |= any[p];
    a &= all[p];
  }
  return static_cast<unsigned>(std::bit_width(o ^ a));
}

template <typename T>
void sort_all(std::span<T> v, std::span<T> scratch, format::TaskPool& pool) {
  const std::size_t n = v.size();
  // A part a thread, each with its counters; every round below runs `parts` tasks, so that a pool
  // of many threads (--threads 4096) starts no more of them than the parts.
  const unsigned parts = format::parts_for(n, pool.threads(), kParallelFrom);
  if (n <= kInsertion) {
    insertion_sort(v.data(), n);
    return;
  }
  const unsigned bits = differing_bits(v.data(), n, parts, pool);
  if (parts == 1 || bits == 0) {
    sort_range(v.data(), scratch.data(), n, bits, true, cached_counters().get());
    return;
  }
  // The first pass on threads: each counts its part's digits, then scatters its part to where its
  // buckets' slots start (after the same bucket of the parts before it: a stable pass, so the
  // result does not depend on the thread count); then the buckets are sorted, each part's task
  // taking the next bucket left until none is.
  const unsigned width = std::min(kMaxDigitBits, bits), shift = bits - width;
  const uint64_t mask = (uint64_t{1} << width) - 1;
  const std::size_t buckets = std::size_t{1} << width;
  std::vector<std::vector<std::size_t>> next(parts, std::vector<std::size_t>(buckets, 0));
  pool.run(parts, [&](std::size_t part, unsigned, auto&) {
    auto& count = next[part];
    const auto [b, e] = format::part_range(n, part, parts);
    for (std::size_t i = b; i < e; ++i) ++count[(key_of(v[i]) >> shift) & mask];
  });
  std::vector<std::size_t> start(buckets + 1, 0);
  std::size_t sum = 0;
  for (std::size_t b = 0; b < buckets; ++b) {
    start[b] = sum;
    for (unsigned part = 0; part < parts; ++part) {
      const std::size_t count = next[part][b];
      next[part][b] = sum;
      sum += count;
    }
  }
  start[buckets] = n;
  pool.run(parts, [&](std::size_t part, unsigned, auto&) {
    auto& slot = next[part];
    const auto [b, e] = format::part_range(n, part, parts);
    for (std::size_t i = b; i < e; ++i) {
      const T x = v[i];
      scratch[slot[(key_of(x) >> shift) & mask]++] = x;
    }
  });
  std::atomic<std::size_t> next_bucket{0};
  pool.run(parts, [&](std::size_t, unsigned, auto&) {
    CachedCounters cached;  // made when the task first needs them
    for (std::size_t b;
         !format::round_stopped() && (b = next_bucket.fetch_add(1, std::memory_order_relaxed)) < buckets;) {
      if (start[b + 1] == start[b]) continue;
      if (!cached) cached = cached_counters();
      sort_range(scratch.data() + start[b], v.data() + start[b], start[b + 1] - start[b], shift, false,
                 cached.get());
    }
  });
}

}  // namespace

void radix_sort(std::span<uint64_t> keys, std::span<uint64_t> scratch, format::TaskPool& pool) {
  sort_all(keys, scratch, pool);
}
void radix_sort(std::span<Pair> pairs, std::span<Pair> scratch, format::TaskPool& pool) {
  sort_all(pairs, scratch, pool);
}
void radix_sort(std::span<uint64_t> keys, std::span<uint64_t> scratch, unsigned threads) {
  format::TaskPool pool(threads);
  sort_all(keys, scratch, pool);
}
void radix_sort(std::span<Pair> pairs, std::span<Pair> scratch, unsigned threads) {
  format::TaskPool pool(threads);
  sort_all(pairs, scratch, pool);
}

#undef SIMDEX_HOT_LOOPS  // this file's own: not into the next file of a unity build

}  // namespace simdex::writer
