#include "format/permutation.h"

#include "simdex/error.h"

namespace simdex::format {

namespace {
std::array<uint8_t, 64> identity_bits() {
  std::array<uint8_t, 64> a{};
  for (unsigned j = 0; j < 64; ++j) a[j] = static_cast<uint8_t>(j);
  return a;
}
}  // namespace

Permutation::Permutation() : Permutation(identity_bits()) {}

Permutation::Permutation(const std::array<uint8_t, 64>& source_bit) : source_bit_(source_bit) {
  if (auto why = check(source_bit); !why.empty()) throw Error(errc::bad_permutation, why);
  std::array<uint8_t, 64> inverse{};
  for (unsigned j = 0; j < 64; ++j) inverse[source_bit[j]] = static_cast<uint8_t>(j);
  forward_runs_ = compile(source_bit, forward_);
  inverse_runs_ = compile(inverse, inverse_);
}

std::string Permutation::check(const std::array<uint8_t, 64>& source_bit) {
  uint64_t seen = 0;
  for (unsigned j = 0; j < 64; ++j) {
    if (source_bit[j] > 63)
      return "source_bit[" + std::to_string(j) + "] = " + std::to_string(source_bit[j]) + " > 63";
    const uint64_t bit = uint64_t{1} << source_bit[j];
    if (seen & bit) return "source bit " + std::to_string(source_bit[j]) + " used twice";
    seen |= bit;
  }
  return "";
}

unsigned Permutation::compile(const std::array<uint8_t, 64>& source_bit, Runs& runs) {
  unsigned count = 0;
  for (unsigned j = 0; j < 64;) {
    unsigned len = 1;
    while (j + len < 64 && source_bit[j + len] == source_bit[j] + len) ++len;
    const uint64_t mask = len == 64 ? ~uint64_t{0} : (uint64_t{1} << len) - 1;
    runs[count++] = Run{source_bit[j], static_cast<uint8_t>(j), mask};
    j += len;
  }
  return count;
}

bool Permutation::is_identity() const { return forward_runs_ == 1 && forward_[0].from == 0; }

uint64_t prefix_mask(const std::array<uint8_t, 64>& source_bit, unsigned prefix_bits) {
  uint64_t m = 0;
  for (unsigned i = 0; i < prefix_bits && i < 64; ++i) m |= uint64_t{1} << source_bit[63 - i];
  return m;
}

}  // namespace simdex::format
