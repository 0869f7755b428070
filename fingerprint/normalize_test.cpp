#include "fingerprint/normalize.h"

#include <doctest/doctest.h>
#include <unicode/bytestream.h>
#include <unicode/normalizer2.h>

#include <random>
#include <string>
#include <vector>

namespace {
std::string nf(std::string_view s) {
  static simdex::text::Normalizer n;
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
  simdex::text::Normalizer n;
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
  simdex::text::Normalizer n;
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

namespace {
// ICU's toNFKC_Casefold of `s` in one call: what the Normalizer must agree with.
std::string icu_reference(std::string_view s) {
  UErrorCode status = U_ZERO_ERROR;
  const icu::Normalizer2* n = icu::Normalizer2::getNFKCCasefoldInstance(status);
  std::string out;
  icu::StringByteSink<std::string> sink(&out);
  n->normalizeUTF8(0, icu::StringPiece(s.data(), static_cast<int32_t>(s.size())), sink, nullptr, status);
  REQUIRE(U_SUCCESS(status));
  return out;
}

void append_code_point(std::string& s, char32_t c) {
  if (c < 0x80) {
    s += static_cast<char>(c);
  } else if (c < 0x800) {
    s += static_cast<char>(0xC0 | (c >> 6));
    s += static_cast<char>(0x80 | (c & 0x3F));
  } else if (c < 0x10000) {
    s += static_cast<char>(0xE0 | (c >> 12));
    s += static_cast<char>(0x80 | ((c >> 6) & 0x3F));
    s += static_cast<char>(0x80 | (c & 0x3F));
  } else {
    s += static_cast<char>(0xF0 | (c >> 18));
    s += static_cast<char>(0x80 | ((c >> 12) & 0x3F));
    s += static_cast<char>(0x80 | ((c >> 6) & 0x3F));
    s += static_cast<char>(0x80 | (c & 0x3F));
  }
}
}  // namespace

TEST_CASE("long runs of combining marks: the same text as ICU, in linear time") {
  // Marks of many classes (230, 220, 202, 240 iota subscript that folds to a starter, 1 overlay,
  // 7 nukta, 9 virama, 129/130 Tibetan), characters whose mapping starts with marks (U+0344, U+0F73,
  // U+0F75, U+0F81), default-ignorables between marks (CGJ, ZWJ, soft hyphen, U+180B), bases that
  // compose (a, e, o, A, Greek alpha, Hangul jamo L and V), compatibility and case mappings.
  const std::vector<char32_t> pool = {
      0x0301,  0x0300, 0x0316, 0x0317, 0x0327, 0x0328, 0x0345, 0x0334, 0x093C, 0x094D, 0x0F71,
      0x0F72,  0x0F74, 0x0F80, 0x0344, 0x0F73, 0x0F75, 0x0F81, 0x034F, 0x200D, 0x00AD, 0x180B,
      0x0308,  0x0323, 0x031B, 0x05B0, 0x05B4, 0x0E38, 0x0E48, 0x302A, 0x3099, 0x309A, 0x1D165,
      0x1D16D, 'a',    'e',    'o',    'A',    0x03B1, 0x1100, 0x1161, 0x11A8, 0xFB01, 0x2126,
      0x212B,  0x00C5, 0x1E9E, 0x0130, 0x304B, 0xFF76, 0xFF9E, ' '};
  simdex::text::Normalizer n;
  std::mt19937_64 rng(11);
  std::string s, ours;
  for (int round = 0; round < 3000; ++round) {
    s.clear();
    const std::size_t length = 20 + rng() % 300;
    // Mostly marks, so that runs longer than the fast path's bound are common.
    for (std::size_t i = 0; i < length; ++i)
      append_code_point(s, pool[rng() % (rng() % 4 == 0 ? pool.size() : 22)]);
    n.normalize(s, ours);
    REQUIRE_MESSAGE(ours == icu_reference(s), "round " << round);
  }
  // A million marks of two classes after one base: ICU alone reorders them in quadratic time
  // (minutes); the normalizer in well under a second.
  s = "x";
  for (int i = 0; i < 500000; ++i) s += "\xCC\x81\xCC\x96";  // U+0301 (230), U+0316 (220)
  n.normalize(s, ours);
  std::string expected = "x";
  for (int i = 0; i < 500000; ++i) expected += "\xCC\x96";
  for (int i = 0; i < 500000; ++i) expected += "\xCC\x81";
  CHECK(ours == expected);
}

TEST_CASE("code points mapped one at a time agree with ICU: each code point, and random text") {
  simdex::text::Normalizer n;
  std::string s, fast, icu;
  // Every code point alone, after a letter and before one (a mark composes with the letter before
  // it; the code points of a text without marks are mapped one at a time).
  for (char32_t c = 0x80; c < 0x110000; c += (c < 0x20000 ? 1 : 97)) {
    if (c >= 0xD800 && c <= 0xDFFF) continue;
    for (const char* before : {"", "A", "\xE1\x84\x80"}) {  // "", A, a leading jamo
      s = before;
      append_code_point(s, c);
      s += "Z";
      n.normalize(s, fast);
      n.normalize_with_icu(s, icu, std::size_t{1} << 30);
      CAPTURE(static_cast<unsigned>(c));
      REQUIRE(fast == icu);
    }
  }
  // Random text over code points of every kind: ASCII, Latin with and without marks, Greek final
  // sigma, compatibility forms, ignorables, Hangul jamo and syllables, CJK, emoji, supplementary.
  const std::vector<char32_t> alphabet = {
      'a',    'Z',    ' ',    '.',    0xC9,   0xDF,   0xE9,    0x130,   0x301,   0x323,  0x345,
      0x3A3,  0x3C2,  0x3A9,  0xAD,   0x200B, 0x200D, 0x1100,  0x1161,  0x11A8,  0xAC00, 0xAC01,
      0x4E2D, 0xF900, 0xFB01, 0xFF21, 0xFF76, 0xFF9E, 0x1F600, 0x1D400, 0x2F800, 0x0E01, 0x0E31,
      0x093F, 0x094D, 0x0627, 0x064B, 0x1E9E, 0x2126, 0x212B,  0x3099};
  std::mt19937_64 rng(11);
  for (int round = 0; round < 20000; ++round) {
    s.clear();
    const std::size_t kinds = 1 + rng() % alphabet.size();
    for (std::size_t k = rng() % 40; k > 0; --k) append_code_point(s, alphabet[rng() % kinds]);
    n.normalize(s, fast);
    n.normalize_with_icu(s, icu, std::size_t{1} << 30);
    CAPTURE(s);
    REQUIRE(fast == icu);
  }
}

TEST_CASE("text with non-ASCII letters: every ASCII byte at every offset from the 8-byte steps") {
  simdex::text::Normalizer n;
  std::string s, fast, icu;
  for (unsigned b = 0; b < 0x80; ++b)
    for (std::size_t offset = 0; offset < 17; ++offset) {
      s = "\xC3\xA9" + std::string(offset, 'x') + static_cast<char>(b) + std::string(9, 'Y') + "\xC3\x89z";
      n.normalize(s, fast);
      n.normalize_with_icu(s, icu, std::size_t{1} << 30);
      CAPTURE(b);
      CAPTURE(offset);
      REQUIRE(fast == icu);
    }
}
