// Table schemes (Manku et al. 2007, section 3): which bits each table moves to the top and how many
// leading bits a probe must share. A file stores every table's permutation and prefix length, so a
// reader needs none of this; the writer uses it to choose the tables. The types and the coverage
// check are format/scheme.cpp; the schemes one can build (one_level ... scheme_catalogue) are the
// writer's policy, writer/scheme_policy.cpp.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "simdex/error.h"
#include "simdex/export.h"

namespace simdex {

struct SIMDEX_EXPORT TableLayout {
  std::array<uint8_t, 64> source_bit{};  // permuted bit j = original bit source_bit[j] (bit 0 = LSB)
  unsigned prefix_bits = 0;              // the probe reads entries sharing this many top bits
  uint64_t prefix_mask() const;          // original bits that form the prefix
};

struct SIMDEX_EXPORT Scheme {
  std::string name;           // informational, stored in the file (at most 32 ASCII bytes)
  unsigned max_distance = 0;  // k: every fingerprint within k bits is found
  std::vector<TableLayout> tables;

  // The 64 bits in `blocks` near-equal contiguous blocks (larger first); one table per choice of
  // blocks - k leading blocks: C(blocks, k) tables, table 0 the identity.
  static Scheme one_level(unsigned blocks, unsigned k);
  // The paper's two-level scheme: `top` blocks choose top - k to lead; the remaining bits split into
  // `sub` blocks of which sub - k follow. C(top, k) * C(sub, k) tables.
  static Scheme two_level(unsigned top, unsigned sub, unsigned k);
  // "paper-20", "paper-16", "paper-10", "paper-4" (f = 64, k = 3, as in the paper), or
  // "blocks-M" (one_level(M, k)) and "auto" with the given k. Throws Error(usage) otherwise.
  static Scheme named(std::string_view name, unsigned k, uint64_t expected_count);
  // One-level scheme with the fewest tables whose shortest prefix leaves about 256 candidates per
  // probe for `count` fingerprints (p >= log2(count) - 8), at most 256 tables.
  static Scheme automatic(uint64_t count, unsigned k);

  // A set of at most k bit positions no table's prefix avoids, i.e. two fingerprints differing
  // there would be missed; nullopt when the scheme covers distance k. Exhaustive (hitting-set search).
  std::optional<uint64_t> uncovered_difference(unsigned k) const;
};

// The names Scheme::named accepts, with a one-line description each, for --help.
SIMDEX_EXPORT std::vector<std::pair<std::string, std::string>> scheme_catalogue();

}  // namespace simdex
