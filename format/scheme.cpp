// What readers need of a scheme: each table's prefix and whether the tables cover a distance (the
// writer's policy, which tables to choose, is writer/scheme_policy.cpp).
#include "simdex/scheme.h"

#include <algorithm>

#include "format/coverage.h"
#include "format/permutation.h"

namespace simdex {

uint64_t TableLayout::prefix_mask() const { return format::prefix_mask(source_bit, prefix_bits); }

std::optional<uint64_t> Scheme::uncovered_difference(unsigned k) const {
  std::vector<uint64_t> masks;
  for (const auto& t : tables) masks.push_back(t.prefix_mask());
  const auto c = format::check_coverage(masks, k, UINT64_MAX);  // the schemes simdex makes decide fast
  if (c.status == format::Coverage::Status::uncovered) return c.uncovered;
  return std::nullopt;
}

}  // namespace simdex
