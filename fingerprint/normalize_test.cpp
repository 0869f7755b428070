#include "fingerprint/normalize.h"

#include <doctest/doctest.h>

#include <random>
#include <string>

namespace {
std::string nf(std::string_view s) {
  static const simdex::text::Normalizer n;
  std::string out;
  n.normalize(s, out);
  return out;
}
}  // namespace

TEST_CASE("NFKC_Casefold examples") {
  CHECK(nf("Hello WORLD") == "hello world");
  CHECK(nf("\xEF\xBC\xA8\xEF\xBD\x85\xEF\xBD\x8C\xEF\xBD\x8C\xEF\xBD\x8F") == "hello");  // fullwidth
  CHECK(nf("e\xCC\x81") == "\xC3\xA9");  // e + combining acute -> é (composed)
  CHECK(nf("\xC3\x89") == "\xC3\xA9");   // É -> é
  CHECK(nf("Stra\xC3\x9F"
           "e") == "strasse");                                          // ß folds to ss
  CHECK(nf("\xEF\xAC\x81") == "fi");                                    // ﬁ ligature
  CHECK(nf("soft\xC2\xADhyphen") == "softhyphen");                      // default-ignorable removed
  CHECK(nf("\xCE\xA3\xCE\x99\xCE\xA3") == "\xCF\x83\xCE\xB9\xCF\x83");  // ΣΙΣ -> σισ
  CHECK(nf("\xEF\xBD\xB6\xEF\xBE\x9E") == "\xE3\x82\xAC");              // halfwidth ｶﾞ -> ガ
  CHECK(nf("") == "");
}

TEST_CASE("the ASCII shortcut agrees with ICU") {
  const simdex::text::Normalizer n;
  std::mt19937_64 rng(7);
  std::string s, fast, icu;
  for (int round = 0; round < 500; ++round) {
    s.resize(rng() % 64);
    for (char& c : s) c = static_cast<char>(rng() % 128);
    n.normalize(s, fast);
    n.normalize_with_icu(s, icu, std::size_t{1} << 30);
    REQUIRE(fast == icu);
  }
}

TEST_CASE("normalizing in chunks gives the same result") {
  const simdex::text::Normalizer n;
  // Mixed text with combining sequences that must not be split from their base.
  std::string text;
  for (int i = 0; i < 50; ++i)
    text +=
        "A\xCC\x8A"
        "bc \xE1\x84\x80\xE1\x85\xA1\xE1\x86\xA8 e\xCC\x81\xCC\xA3 \xEF\xAC\x81 \xE4\xB8\xAD ";
  std::string whole, chunked;
  n.normalize_with_icu(text, whole, std::size_t{1} << 30);
  for (std::size_t chunk : {1, 2, 3, 5, 7, 16, 100}) {
    n.normalize_with_icu(text, chunked, chunk);
    CHECK_MESSAGE(chunked == whole, "chunk " << chunk);
  }
}
