// A bit permutation of 64-bit fingerprints, as stored in a table descriptor: permuted bit j (value
// 2^j) is original bit source_bit[j]. Applied through runs of consecutive bits, so the block
// permutations of the paper's schemes cost a few shifts and masks, not 64 single-bit moves.
#pragma once

#include <array>
#include <cstdint>
#include <string>

namespace simdex::format {

class Permutation {
 public:
  Permutation();  // identity
  // Throws Error(bad_permutation) unless source_bit holds each of 0..63 exactly once.
  explicit Permutation(const std::array<uint8_t, 64>& source_bit);

  uint64_t apply(uint64_t x) const { return run(forward_, forward_runs_, x); }
  uint64_t invert(uint64_t y) const { return run(inverse_, inverse_runs_, y); }
  const std::array<uint8_t, 64>& source_bit() const { return source_bit_; }
  bool is_identity() const;

  // Empty when valid, else the reason.
  static std::string check(const std::array<uint8_t, 64>& source_bit);

 private:
  struct Run {
    uint8_t from, to;  // lowest bit of the run in the source and in the destination
    uint64_t mask;     // run length as a low mask
  };
  using Runs = std::array<Run, 64>;
  static unsigned compile(const std::array<uint8_t, 64>& source_bit, Runs& runs);
  static uint64_t run(const Runs& runs, unsigned count, uint64_t x) {
    uint64_t out = 0;
    for (unsigned i = 0; i < count; ++i) out |= ((x >> runs[i].from) & runs[i].mask) << runs[i].to;
    return out;
  }

  std::array<uint8_t, 64> source_bit_;
  Runs forward_, inverse_;
  unsigned forward_runs_ = 0, inverse_runs_ = 0;
};

// The original bits that become the top `prefix_bits` bits of the permuted value (source_bit[63],
// source_bit[62], ...): two fingerprints share a table's prefix iff their XOR has none of them.
uint64_t prefix_mask(const std::array<uint8_t, 64>& source_bit, unsigned prefix_bits);

}  // namespace simdex::format
