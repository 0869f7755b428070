// Step 6's tally (spec/FINGERPRINT.md): for each of the 64 bit positions, how many of a text's
// feature hashes have a 1 there. A positional population count in carry-save adders (Harley and
// Seal's method, as in Klarqvist, Muła and Lemire, "Efficient computation of positional population
// counts using SIMD instructions", 2021): 16 hashes are added into bit-sliced counters with 15
// three-input adders of 64-bit words, some 5 operations a hash, where a table of spread bytes took
// 8 loads and 8 additions.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <span>

namespace simdex::text {

namespace bit_counts_detail {

// A full adder on 64 lanes: (high, low) = a + b + c, lane by lane.
inline void add3(std::uint64_t& high, std::uint64_t& low, std::uint64_t a, std::uint64_t b, std::uint64_t c) {
  const std::uint64_t u = a ^ b;
  high = (a & b) | (u & c);
  low = u ^ c;
}

// Adds `v` (one bit a lane) at bit-plane `from` of the 8-plane counter `planes`, carrying upward.
inline void ripple(std::uint64_t (&planes)[8], std::uint64_t v, unsigned from) {
  for (unsigned j = from; j < 8 && v != 0; ++j) {
    const std::uint64_t carry = planes[j] & v;
    planes[j] ^= v;
    v = carry;
  }
}

// Adds 8 hashes into the planes of ones, twos and fours; returns the carry into the eights.
inline std::uint64_t add8(std::uint64_t (&planes)[8], const std::uint64_t* h) {
  std::uint64_t twos_a, twos_b, fours_a, fours_b, eights;
  add3(twos_a, planes[0], planes[0], h[0], h[1]);
  add3(twos_b, planes[0], planes[0], h[2], h[3]);
  add3(fours_a, planes[1], planes[1], twos_a, twos_b);
  add3(twos_a, planes[0], planes[0], h[4], h[5]);
  add3(twos_b, planes[0], planes[0], h[6], h[7]);
  add3(fours_b, planes[1], planes[1], twos_a, twos_b);
  add3(eights, planes[2], planes[2], fours_a, fours_b);
  return eights;
}

// Adds hashes from `i` on into `planes` (zero before), as many as 8 planes can count (at most 255);
// returns where it stopped. planes[j] holds bit j of each lane's count.
inline std::size_t add_to_planes(std::span<const std::uint64_t> hashes, std::size_t i,
                                 std::uint64_t (&planes)[8]) {
  // 15 blocks of 16 hashes (240), or fewer blocks and the fewer than 16 hashes left after them.
  const std::size_t blocks = std::min<std::size_t>((hashes.size() - i) / 16, 15);
  for (const std::size_t blocks_end = i + 16 * blocks; i < blocks_end; i += 16) {
    const std::uint64_t eights_a = add8(planes, hashes.data() + i);
    const std::uint64_t eights_b = add8(planes, hashes.data() + i + 8);
    std::uint64_t sixteens;
    add3(sixteens, planes[3], planes[3], eights_a, eights_b);
    ripple(planes, sixteens, 4);
  }
  if (blocks < 15)
    for (; i < hashes.size(); ++i) ripple(planes, hashes[i], 0);
  return i;
}

}  // namespace bit_counts_detail

// ones[b] += the number of hashes whose bit b is 1.
inline void count_ones(std::span<const std::uint64_t> hashes, std::uint64_t (&ones)[64]) {
  using namespace bit_counts_detail;
  for (std::size_t i = 0; i < hashes.size();) {
    std::uint64_t planes[8] = {};
    i = add_to_planes(hashes, i, planes);
    for (unsigned b = 0; b < 64; ++b) {
      std::uint64_t count = 0;
      for (unsigned j = 0; j < 8; ++j) count |= ((planes[j] >> b) & 1) << j;
      ones[b] += count;
    }
  }
}

// The bits that more than half of the hashes have set: step 6 with every weight 1 (the tally
// ones - zeros is positive where 2 ones > count). Up to 239 hashes, and for up to 240, the
// bit-sliced counts are compared with count / 2 on all 64 lanes at once, where turning them into
// 64 numbers first cost more than adding a short text's hashes.
inline std::uint64_t majority_bits(std::span<const std::uint64_t> hashes) {
  using namespace bit_counts_detail;
  std::uint64_t planes[8] = {};
  if (add_to_planes(hashes, 0, planes) == hashes.size()) {
    const std::size_t half = hashes.size() / 2;  // 2 ones > count  <=>  ones > count / 2 (rounded down)
    std::uint64_t greater = 0, equal = ~std::uint64_t{0};
    for (unsigned j = 8; j-- > 0;) {  // from the highest bit of the counts down
      if ((half >> j) & 1) {
        equal &= planes[j];
      } else {
        greater |= equal & planes[j];
        equal &= ~planes[j];
      }
    }
    return greater;
  }
  std::uint64_t ones[64] = {};
  count_ones(hashes, ones);
  std::uint64_t result = 0;
  for (unsigned b = 0; b < 64; ++b)
    if (2 * ones[b] > hashes.size()) result |= std::uint64_t{1} << b;
  return result;
}

}  // namespace simdex::text
