// MSD radix sort of 64-bit keys and of (key, id) pairs. The first pass scatters by the 10 highest
// bits in which the keys differ (found first, so that keys sharing a long prefix, as a dense
// cluster does, cost no idle passes); each bucket, then small enough for the caches, is sorted the
// same way by its next digits, chosen wide enough to leave about one key a bucket, then insertion
// sort. Against the former LSD sort (six passes of the whole array through memory) it moves the
// array through memory about twice. bench/compare_bench.cpp's Sort/* compares it with std::sort.
#pragma once

#include <cstdint>
#include <span>

#include "writer/pair.h"

namespace simdex::format {
class TaskPool;
}

namespace simdex::writer {

// Sorts ascending (pairs by key, then id); `scratch` must hold at least as many values (its contents
// are lost). The first pass and the buckets run on up to `threads` threads (the pool's, or a pool
// of its own); the order is the same at any thread count.
void radix_sort(std::span<uint64_t> keys, std::span<uint64_t> scratch, format::TaskPool& pool);
void radix_sort(std::span<Pair> pairs, std::span<Pair> scratch, format::TaskPool& pool);
void radix_sort(std::span<uint64_t> keys, std::span<uint64_t> scratch, unsigned threads = 1);
void radix_sort(std::span<Pair> pairs, std::span<Pair> scratch, unsigned threads = 1);

}  // namespace simdex::writer
