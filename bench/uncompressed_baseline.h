// The uncompressed baseline of bench/compare_bench.cpp: the same permuted, sorted tables as a simdex
// index, stored as plain uint64 arrays (8 bytes per entry per table), probed by interpolation search
// on the query's prefix range. Answers: (fingerprint, distance), sorted by (distance, fingerprint).
#pragma once

#include <algorithm>
#include <bit>
#include <cstdint>
#include <vector>

#include "format/permutation.h"
#include "simdex/index.h"
#include "simdex/scheme.h"

namespace simdex::bench {

using Answer = std::vector<std::pair<unsigned, uint64_t>>;  // (distance, fingerprint), sorted

// simdex's answer to q within k, in the baseline's form.
inline Answer simdex_answer(const Index& index, uint64_t q, unsigned k) {
  Answer a;
  for (const auto& h : index.query(q, k)) a.emplace_back(h.distance, h.fingerprint);
  return a;
}

class UncompressedTables {
 public:
  UncompressedTables(const std::vector<uint64_t>& fingerprints, const Scheme& scheme) {
    for (const TableLayout& layout : scheme.tables) {
      Table t{format::Permutation(layout.source_bit), layout.prefix_bits, {}};
      t.entries.reserve(fingerprints.size());
      for (uint64_t f : fingerprints) t.entries.push_back(t.perm.apply(f));
      std::sort(t.entries.begin(), t.entries.end());
      t.entries.erase(std::unique(t.entries.begin(), t.entries.end()), t.entries.end());
      tables_.push_back(std::move(t));
    }
  }
  uint64_t bytes() const {
    uint64_t b = 0;
    for (const auto& t : tables_) b += t.entries.size() * 8;
    return b;
  }
  // Appends (fingerprint, distance) pairs to out (cleared first); allocation-free once out has room.
  void query(uint64_t f, unsigned k, std::vector<std::pair<unsigned, uint64_t>>& out) const {
    out.clear();
    for (const Table& t : tables_) {
      const uint64_t q = t.perm.apply(f);
      const uint64_t low = t.prefix >= 64 ? 0 : (t.prefix == 0 ? ~uint64_t{0} : ~uint64_t{0} >> t.prefix);
      const uint64_t lo = q & ~low, hi = q | low;
      for (std::size_t i = lower_bound(t.entries, lo); i < t.entries.size() && t.entries[i] <= hi; ++i) {
        const auto d = static_cast<unsigned>(std::popcount(t.entries[i] ^ q));
        if (d <= k) out.emplace_back(d, t.perm.invert(t.entries[i]));
      }
    }
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
  }

 private:
  struct Table {
    format::Permutation perm;
    unsigned prefix;
    std::vector<uint64_t> entries;
  };
  // Interpolation search, then binary search once the range is small: the first i with v[i] >= x.
  static std::size_t lower_bound(const std::vector<uint64_t>& v, uint64_t x) {
    std::size_t lo = 0, hi = v.size();  // answer in [lo, hi]
    while (hi - lo > 16) {
      const std::size_t before = hi - lo;
      const uint64_t a = v[lo], b = v[hi - 1];
      if (x <= a) return lo;
      if (x > b) return hi;
      const double frac = static_cast<double>(x - a) / static_cast<double>(b - a);
      auto mid = lo + static_cast<std::size_t>(frac * static_cast<double>(hi - 1 - lo));
      mid = std::clamp(mid, lo, hi - 1);
      if (v[mid] < x)
        lo = mid + 1;
      else
        hi = mid;
      // Guard against slow convergence on skewed data: a binary step when interpolation did not halve.
      const std::size_t half = lo + (hi - lo) / 2;
      if (hi - lo > 16 && hi - lo > before / 2) {
        if (v[half] < x)
          lo = half + 1;
        else
          hi = half;
      }
    }
    return static_cast<std::size_t>(std::lower_bound(v.begin() + static_cast<std::ptrdiff_t>(lo),
                                                     v.begin() + static_cast<std::ptrdiff_t>(hi), x) -
                                    v.begin());
  }
  std::vector<Table> tables_;
};

}  // namespace simdex::bench
