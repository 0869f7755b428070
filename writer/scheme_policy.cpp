// The writer's scheme policy (Manku et al. 2007, section 3): the one- and two-level block schemes,
// the paper's named schemes and the automatic choice for an input size. A reader needs none of it:
// a file stores every table's permutation and prefix length.
#include <algorithm>
#include <cmath>

#include "simdex/error.h"
#include "simdex/scheme.h"

namespace simdex {

namespace {

struct BitRange {
  unsigned high;  // most significant bit of the block
  unsigned size;
};

// `bits` (listed MSB first) cut into `count` near-equal contiguous blocks, the larger ones first.
std::vector<std::vector<unsigned>> split(const std::vector<unsigned>& bits, unsigned count) {
  std::vector<std::vector<unsigned>> blocks(count);
  const std::size_t base = bits.size() / count, extra = bits.size() % count;
  std::size_t at = 0;
  for (unsigned b = 0; b < count; ++b) {
    const std::size_t size = base + (b < extra ? 1 : 0);
    blocks[b].assign(bits.begin() + static_cast<long>(at), bits.begin() + static_cast<long>(at + size));
    at += size;
  }
  return blocks;
}

// All `choose`-subsets of {0..n-1} in lexicographic order.
std::vector<std::vector<unsigned>> combinations(unsigned n, unsigned choose) {
  std::vector<std::vector<unsigned>> out;
  std::vector<unsigned> c(choose);
  for (unsigned i = 0; i < choose; ++i) c[i] = i;
  for (;;) {
    out.push_back(c);
    int i = static_cast<int>(choose) - 1;
    while (i >= 0 && c[i] == n - choose + static_cast<unsigned>(i)) --i;
    if (i < 0) return out;
    ++c[i];
    for (unsigned j = static_cast<unsigned>(i) + 1; j < choose; ++j) c[j] = c[j - 1] + 1;
  }
}

uint64_t binomial(unsigned n, unsigned k) {
  if (k > n) return 0;
  uint64_t r = 1;
  for (unsigned i = 1; i <= k; ++i) r = r * (n - k + i) / i;
  return r;
}

// Lays out leading blocks first, then the rest, each keeping its bit order; the order is MSB first.
TableLayout layout_from(const std::vector<unsigned>& msb_first_order, unsigned prefix_bits) {
  TableLayout t;
  for (unsigned i = 0; i < 64; ++i) t.source_bit[63 - i] = static_cast<uint8_t>(msb_first_order[i]);
  t.prefix_bits = prefix_bits;
  return t;
}

std::vector<unsigned> all_bits_msb_first() {
  std::vector<unsigned> bits(64);
  for (unsigned i = 0; i < 64; ++i) bits[i] = 63 - i;
  return bits;
}

// Moves the chosen blocks (in their order) in front of the others; returns the bit order and the
// number of bits moved.
std::pair<std::vector<unsigned>, unsigned> lead(const std::vector<std::vector<unsigned>>& blocks,
                                                const std::vector<unsigned>& chosen) {
  std::vector<unsigned> order;
  for (unsigned b : chosen) order.insert(order.end(), blocks[b].begin(), blocks[b].end());
  const auto leading = static_cast<unsigned>(order.size());
  for (unsigned b = 0; b < blocks.size(); ++b)
    if (!std::binary_search(chosen.begin(), chosen.end(), b))
      order.insert(order.end(), blocks[b].begin(), blocks[b].end());
  return {order, leading};
}

void check_k(unsigned k) {
  if (k > 32) throw Error(errc::usage, "k = " + std::to_string(k) + " is out of range (0..32)");
}

}  // namespace

Scheme Scheme::one_level(unsigned blocks, unsigned k) {
  check_k(k);
  if (blocks <= k || blocks > 64)
    throw Error(errc::usage, "a one-level scheme for k = " + std::to_string(k) + " needs between " +
                                 std::to_string(k + 1) + " and 64 blocks, not " + std::to_string(blocks));
  if (binomial(blocks, k) > 4096)
    throw Error(errc::usage, std::to_string(blocks) + " blocks with k = " + std::to_string(k) + " make " +
                                 std::to_string(binomial(blocks, k)) + " tables; at most 4096 are allowed");
  Scheme s;
  s.name = "blocks-" + std::to_string(blocks) + "-k" + std::to_string(k);
  s.max_distance = k;
  const auto parts = split(all_bits_msb_first(), blocks);
  for (const auto& chosen : combinations(blocks, blocks - k)) {
    auto [order, leading] = lead(parts, chosen);
    s.tables.push_back(layout_from(order, leading));
  }
  return s;
}

Scheme Scheme::two_level(unsigned top, unsigned sub, unsigned k) {
  check_k(k);
  if (top <= k || sub <= k || top > 64 || sub > 64)
    throw Error(errc::usage, "a two-level scheme for k = " + std::to_string(k) + " needs more than " +
                                 std::to_string(k) + " blocks at each level");
  if (binomial(top, k) * binomial(sub, k) > 4096)
    throw Error(errc::usage, "the two-level scheme would have more than 4096 tables");
  Scheme s;
  s.name = "two-level-" + std::to_string(top) + "x" + std::to_string(sub) + "-k" + std::to_string(k);
  s.max_distance = k;
  const auto parts = split(all_bits_msb_first(), top);
  for (const auto& chosen : combinations(top, top - k)) {
    auto [order, leading] = lead(parts, chosen);
    const std::vector<unsigned> rest(order.begin() + leading, order.end());
    if (rest.size() < sub)
      throw Error(errc::usage, "too few bits left for " + std::to_string(sub) + " sub-blocks");
    const auto sub_parts = split(rest, sub);
    for (const auto& follow : combinations(sub, sub - k)) {
      auto [sub_order, following] = lead(sub_parts, follow);
      std::vector<unsigned> full(order.begin(), order.begin() + leading);
      full.insert(full.end(), sub_order.begin(), sub_order.end());
      s.tables.push_back(layout_from(full, leading + following));
    }
  }
  return s;
}

Scheme Scheme::automatic(uint64_t count, unsigned k) {
  check_k(k);
  const int d = count < 2 ? 1 : static_cast<int>(std::ceil(std::log2(static_cast<double>(count))));
  const int want = d - 8;
  unsigned chosen = k + 1;
  for (unsigned m = k + 1; m <= 64; ++m) {
    if (binomial(m, k) > 256) break;
    chosen = m;
    const int shortest_prefix = static_cast<int>((64 / m) * (m - k));
    if (shortest_prefix >= want) break;
  }
  Scheme s = one_level(chosen, k);
  s.name = "auto-" + s.name;
  return s;
}

Scheme Scheme::named(std::string_view name, unsigned k, uint64_t expected_count) {
  auto paper = [&](Scheme s, const char* n) {
    if (k != 3)
      throw Error(errc::usage, "scheme '" + std::string(name) +
                                   "' is the paper's scheme for k = 3; for k = " + std::to_string(k) +
                                   " use blocks-M (any M > k; --blocks M on the command line) or auto");
    s.name = n;
    return s;
  };
  if (name == "paper-20") return paper(one_level(6, 3), "paper-20");
  if (name == "paper-16") return paper(two_level(4, 4, 3), "paper-16");
  if (name == "paper-10") return paper(one_level(5, 3), "paper-10");
  if (name == "paper-4") return paper(one_level(4, 3), "paper-4");
  if (name == "auto") return automatic(expected_count, k);
  if (name.starts_with("blocks-")) {
    const std::string digits(name.substr(7));
    if (!digits.empty() && digits.size() <= 2 && std::all_of(digits.begin(), digits.end(), ::isdigit))
      return one_level(static_cast<unsigned>(std::stoul(digits)), k);
  }
  std::string known;
  for (const auto& [known_name, what] : scheme_catalogue()) known += (known.empty() ? "" : ", ") + known_name;
  throw Error(errc::usage, "unknown scheme '" + std::string(name) + "' (known: " + known + ")");
}

std::vector<std::pair<std::string, std::string>> scheme_catalogue() {
  return {
      {"paper-20",
       "k=3: 6 blocks (11,11,11,11,10,10), 3 lead; 20 tables, p=31..33 (the paper's choice, 8B pages)"},
      {"paper-16", "k=3: two levels, 1 of 4 16-bit blocks then 1 of 4 12-bit blocks; 16 tables, p=28"},
      {"paper-10", "k=3: 5 blocks (13,13,13,13,12), 2 lead; 10 tables, p=25..26"},
      {"paper-4", "k=3: 4 blocks of 16, 1 leads; 4 tables, p=16"},
      {"blocks-M", "any k < M: M near-equal blocks, M-k lead; C(M,k) tables"},
      {"auto", "fewest tables leaving ~256 candidates per probe for the input size (default)"},
  };
}

}  // namespace simdex
