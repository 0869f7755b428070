#include "format/coverage.h"

#include <algorithm>
#include <bit>
#include <vector>

namespace simdex::format {

namespace {

// Bits that lie in the prefixes of exactly the same tables are interchangeable, and taking two of
// one class never meets more tables, so the search works on classes (for block schemes: the
// blocks), at most 64 of them: table t's prefix becomes a mask of classes.
struct Classes {
  std::vector<uint64_t> tables;     // per table, the classes of its prefix bits
  std::vector<uint64_t> first_bit;  // per class, its lowest bit
};

Classes classes_of(std::span<const uint64_t> masks) {
  Classes c;
  const std::size_t words = (masks.size() + 63) / 64;
  std::vector<std::vector<uint64_t>> member;  // per class, the set of tables holding it
  std::vector<int> class_of(64, -1);
  for (unsigned bit = 0; bit < 64; ++bit) {
    std::vector<uint64_t> set(words, 0);
    bool any = false;
    for (std::size_t t = 0; t < masks.size(); ++t)
      if ((masks[t] >> bit) & 1) {
        set[t / 64] |= uint64_t{1} << (t % 64);
        any = true;
      }
    if (!any) continue;  // in no prefix: meets no table
    std::size_t k = 0;
    while (k < member.size() && member[k] != set) ++k;
    if (k == member.size()) {
      member.push_back(set);
      c.first_bit.push_back(bit);
    }
    class_of[bit] = static_cast<int>(k);
  }
  c.tables.assign(masks.size(), 0);
  for (std::size_t t = 0; t < masks.size(); ++t)
    for (unsigned bit = 0; bit < 64; ++bit)
      if (class_of[bit] >= 0 && ((masks[t] >> bit) & 1)) c.tables[t] |= uint64_t{1} << class_of[bit];
  return c;
}

// Bounded search for a hitting set: take the table not met yet with the fewest classes still
// allowed, branch on each of them; a class tried in one branch is forbidden in the later ones,
// so no set of classes is visited twice, and a table whose classes are all forbidden ends the
// branch.
class Search {
 public:
  Search(const Classes& c, uint64_t budget) : c_(c), budget_(budget) {}

  // True when a hitting set of at most `left` more classes extends `chosen`.
  bool run(uint64_t chosen, uint64_t forbidden, unsigned left) {
    if (exhausted()) return false;
    uint64_t branch = 0, common = ~forbidden;  // common: the allowed classes every open table has
    int fewest = 65;
    for (const uint64_t t : c_.tables) {
      ++steps_;
      if (t & chosen) continue;  // met
      const uint64_t allowed = t & ~forbidden;
      const int count = std::popcount(allowed);
      if (count == 0) return false;
      common &= allowed;
      if (count < fewest) {
        fewest = count;
        branch = allowed;
      }
    }
    if (fewest == 65) {
      found_ = chosen;
      return true;
    }
    if (left == 0) return false;
    if (common != 0) {  // one class meets every open table
      found_ = chosen | (common & -common);
      return true;
    }
    if (left == 1) return false;  // and no single class does
    for (uint64_t rest = branch; rest != 0; rest &= rest - 1) {
      const uint64_t cls = rest & -rest;
      if (run(chosen | cls, forbidden, left - 1)) return true;
      forbidden |= cls;
    }
    return false;
  }
  bool exhausted() const { return steps_ > budget_; }
  uint64_t steps() const { return steps_; }
  uint64_t found() const { return found_; }

 private:
  const Classes& c_;
  uint64_t budget_;
  uint64_t steps_ = 0;
  uint64_t found_ = 0;
};

}  // namespace

Coverage check_coverage(std::span<const uint64_t> prefix_masks, unsigned k, uint64_t budget) {
  const Classes c = classes_of(prefix_masks);
  Search search(c, budget);
  Coverage out;
  if (search.run(0, 0, k)) {
    out.status = Coverage::Status::uncovered;
    for (uint64_t rest = search.found(); rest != 0; rest &= rest - 1)
      out.uncovered |= uint64_t{1} << c.first_bit[static_cast<unsigned>(std::countr_zero(rest))];
  } else if (search.exhausted()) {
    out.status = Coverage::Status::unchecked;
  }
  out.steps = search.steps();
  return out;
}

std::vector<uint32_t> tables_within(std::span<const uint64_t> prefix_masks, unsigned k, uint64_t budget) {
  std::vector<uint32_t> tables;
  bool analyse = prefix_masks.size() <= kMaxTablesAnalysed;
  std::vector<uint64_t> earlier;  // the masks before t, less S_t
  for (std::size_t t = 0; t < prefix_masks.size(); ++t) {
    bool needed = true;
    if (analyse && t > 0) {
      earlier.clear();
      for (std::size_t u = 0; u < t; ++u) earlier.push_back(prefix_masks[u] & ~prefix_masks[t]);
      const Coverage c = check_coverage(earlier, k, budget);
      needed = c.status != Coverage::Status::covered;
      analyse = c.steps < budget;  // the budget is for all the tables together
      budget -= std::min(c.steps, budget);
    }
    if (needed) tables.push_back(static_cast<uint32_t>(t));
  }
  return tables;
}

}  // namespace simdex::format
