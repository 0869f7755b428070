// What readers need of a scheme: each table's prefix and whether the tables cover a distance (the
// writer's policy, which tables to choose, is writer/scheme_policy.cpp).
#include <algorithm>

#include "format/permutation.h"
#include "simdex/scheme.h"

namespace simdex {

uint64_t TableLayout::prefix_mask() const { return format::prefix_mask(source_bit, prefix_bits); }

std::optional<uint64_t> Scheme::uncovered_difference(unsigned k) const {
  // A difference set is missed iff it hits every table's prefix (a hitting set of size <= k).
  // Bits that lie in the prefixes of exactly the same tables are interchangeable, and taking two of
  // one class never hits more, so the search branches on classes (for block schemes: the blocks).
  const std::size_t words = (tables.size() + 63) / 64;
  using TableSet = std::vector<uint64_t>;
  std::vector<std::pair<TableSet, uint64_t>> classes;  // tables whose prefix holds the bit; its bits
  for (unsigned bit = 0; bit < 64; ++bit) {
    TableSet set(words, 0);
    for (std::size_t t = 0; t < tables.size(); ++t)
      if ((tables[t].prefix_mask() >> bit) & 1) set[t / 64] |= uint64_t{1} << (t % 64);
    auto it = std::find_if(classes.begin(), classes.end(), [&](const auto& c) { return c.first == set; });
    if (it == classes.end()) classes.emplace_back(set, uint64_t{1} << bit);
    else it->second |= uint64_t{1} << bit;
  }
  std::optional<uint64_t> found;
  auto search = [&](auto&& self, const TableSet& hit, uint64_t chosen, unsigned left) -> bool {
    std::size_t open = tables.size();  // the first table not hit yet
    for (std::size_t t = 0; t < tables.size(); ++t)
      if (!((hit[t / 64] >> (t % 64)) & 1)) {
        open = t;
        break;
      }
    if (open == tables.size()) {
      found = chosen;
      return true;
    }
    if (left == 0) return false;
    for (std::size_t c = 0; c < classes.size(); ++c) {
      const auto& [set, bits] = classes[c];
      if (!((set[open / 64] >> (open % 64)) & 1) || (chosen & bits)) continue;
      TableSet more = hit;
      for (std::size_t w = 0; w < words; ++w) more[w] |= set[w];
      if (self(self, more, chosen | (bits & -bits), left - 1)) return true;
    }
    return false;
  };
  search(search, TableSet(words, 0), 0, k);
  return found;
}

}  // namespace simdex
