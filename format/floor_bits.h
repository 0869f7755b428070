// The least any encoding of a set of n distinct 64-bit fingerprints needs, per fingerprint:
// log2 C(2^64, n) / n = 64 - log2(n!)/n + sum_{i<n} log2(1 - i/2^64)/n, the last sum about
// -(n-1)/(2^65 ln 2) per entry. `simdex info` compares a table's bits per entry with it, `simdex
// plan` estimates a file's size from it.
#pragma once

#include <math.h>  // lgamma_r: std::lgamma writes the global signgam, a data race between threads

#include <cmath>
#include <cstdint>

namespace simdex::format {

inline double floor_bits_per_entry(double n) {
  if (n < 1) return 0;
  int sign = 0;
  const double ln2 = std::log(2.0);
  return 64.0 - ::lgamma_r(n + 1, &sign) / (n * ln2) - (n - 1) / (std::ldexp(1.0, 65) * ln2);
}

}  // namespace simdex::format
