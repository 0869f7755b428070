#include "format/huffman.h"

#include <doctest/doctest.h>

#include <random>

using namespace simdex::format;

namespace {
uint64_t kraft(const CodeLengths& l) {
  uint64_t k = 0;
  for (auto len : l)
    if (len) k += uint64_t{1} << (kMaxCodeLength - len);
  return k;
}
}  // namespace

TEST_CASE("code lengths: empty, single symbol, complete") {
  std::array<uint64_t, kSymbols> f{};
  CHECK(kraft(code_lengths_from_frequencies(f)) == 0);
  CHECK(check_code_lengths(code_lengths_from_frequencies(f), 1).empty());
  f[17] = 5;
  auto one = code_lengths_from_frequencies(f);
  CHECK(one[17] == 1);
  CHECK(kraft(one) == (1u << (kMaxCodeLength - 1)));
  CHECK(check_code_lengths(one, 6).empty());
  f[3] = 1;
  f[40] = 100;
  auto three = code_lengths_from_frequencies(f);
  CHECK(kraft(three) == (1u << kMaxCodeLength));
  CHECK(three[40] == 1);
  CHECK(check_code_lengths(three, 107).empty());
}

TEST_CASE("code lengths respect the limit on skewed frequencies, and stay complete") {
  std::array<uint64_t, kSymbols> f{};
  for (unsigned s = 0; s < kSymbols; ++s) f[s] = uint64_t{1} << std::min(s, 62u);  // Fibonacci-like skew
  auto l = code_lengths_from_frequencies(f);
  unsigned max = 0;
  for (auto len : l) max = std::max<unsigned>(max, len);
  CHECK(max == kMaxCodeLength);  // the limit is reached: codes at the maximum length exist
  CHECK(kraft(l) == (1u << kMaxCodeLength));
  CHECK(check_code_lengths(l, 1000).empty());
}

TEST_CASE("check_code_lengths rejects over- and under-subscribed codes") {
  CodeLengths l{};
  l[0] = 1;
  l[1] = 1;
  l[2] = 1;
  CHECK(check_code_lengths(l, 10).find("over-subscribe") != std::string::npos);
  l[2] = 0;
  l[1] = 2;
  CHECK(check_code_lengths(l, 10).find("under-subscribe") != std::string::npos);
  CodeLengths single{};
  single[5] = 2;
  CHECK(!check_code_lengths(single, 10).empty());
  CHECK(!check_code_lengths(CodeLengths{}, 2).empty());  // 2 entries need a code
  CodeLengths too_long{};
  too_long[0] = kMaxCodeLength + 1;
  CHECK(!check_code_lengths(too_long, 10).empty());
}

TEST_CASE("canonical codes: ordered by (length, symbol), prefix-free, decoded by the table") {
  std::mt19937_64 rng(7);
  for (int round = 0; round < 200; ++round) {
    std::array<uint64_t, kSymbols> f{};
    for (auto& x : f) x = rng() % 4 == 0 ? 0 : (rng() % 1000) * (rng() % 1000);
    f[rng() % kSymbols] += 1;
    f[rng() % kSymbols] += 1;
    const auto lengths = code_lengths_from_frequencies(f);
    REQUIRE(check_code_lengths(lengths, 100).empty());
    const CanonicalCode code(lengths);
    const DecodeTable table(lengths);
    unsigned used = 0;
    for (unsigned s = 0; s < kSymbols; ++s) {
      if (!lengths[s]) continue;
      ++used;
      const uint32_t index = uint32_t{code.code[s]} << (kMaxCodeLength - lengths[s]);
      const uint16_t entry = table.lookup(index);
      CHECK(DecodeTable::entry_symbol(entry) == s);
      CHECK(DecodeTable::entry_code_length(entry) == lengths[s]);
      CHECK(DecodeTable::entry_bits(entry) == lengths[s] + s);
      for (unsigned t = s + 1; t < kSymbols; ++t)  // canonical order
        if (lengths[t] == lengths[s]) CHECK(code.code[t] > code.code[s]);
    }
    if (used >= 2) {  // a complete code: every bit pattern starts some code
      unsigned undecodable = 0;
      for (uint32_t i = 0; i < (1u << kMaxCodeLength); ++i)
        undecodable += DecodeTable::entry_bits(table.lookup(i)) == 0;
      CHECK(undecodable == 0);
    }
  }
}

TEST_CASE("a single-symbol code decodes bit 0 and rejects bit 1") {
  CodeLengths l{};
  l[9] = 1;
  const DecodeTable t(l);
  CHECK(DecodeTable::entry_symbol(t.lookup(0)) == 9);
  CHECK(DecodeTable::entry_code_length(t.lookup(0)) == 1);
  CHECK(t.lookup(1u << (kMaxCodeLength - 1)) == 0);
}
