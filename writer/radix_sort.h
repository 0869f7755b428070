// LSD radix sort of 64-bit keys: six passes of 11/11/11/11/10/10 bits, every histogram counted in
// one read, passes whose digit is the same for every key skipped. Needs a scratch buffer of the
// same size (bench/build_bench.cpp, BM_Sort*, compares it with std::sort).
#pragma once

#include <cstdint>
#include <span>

namespace simdex::writer {

// Sorts `keys` ascending; `scratch` must hold at least keys.size() values (its contents are lost).
void radix_sort(std::span<uint64_t> keys, std::span<uint64_t> scratch);

}  // namespace simdex::writer
