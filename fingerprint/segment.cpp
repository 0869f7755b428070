#include "fingerprint/segment.h"

#include <unicode/uchar.h>

#include <algorithm>
#include <array>
#include <memory>

namespace simdex::text {

namespace {

struct Range {
  char32_t first, last;
};

// The bigram ranges of spec/FINGERPRINT.md step 3, fixed code point ranges rather than Unicode
// properties so that they never move with the Unicode version. Sorted, disjoint.
constexpr std::array<Range, 20> bigram_ranges{{
    {0x0E00, 0x0EFF},    // Thai, Lao
    {0x1000, 0x109F},    // Myanmar
    {0x1780, 0x17FF},    // Khmer
    {0x3005, 0x3007},    // ideographic iteration mark, closing mark, number zero
    {0x3021, 0x3029},    // Hangzhou numerals
    {0x3031, 0x3035},    // kana repeat marks
    {0x3038, 0x303C},    // Hangzhou numerals, masu mark
    {0x3040, 0x309F},    // Hiragana
    {0x30A0, 0x30FF},    // Katakana
    {0x3100, 0x312F},    // Bopomofo
    {0x31A0, 0x31BF},    // Bopomofo Extended
    {0x31F0, 0x31FF},    // Katakana Phonetic Extensions
    {0x3400, 0x4DBF},    // CJK Unified Ideographs Extension A
    {0x4E00, 0x9FFF},    // CJK Unified Ideographs
    {0xF900, 0xFAFF},    // CJK Compatibility Ideographs
    {0xFF66, 0xFF9F},    // Halfwidth Katakana
    {0x1AFF0, 0x1B16F},  // Kana Extended-B, Kana Supplement, Kana Extended-A, Small Kana Ext.
    {0x1B170, 0x1B2FF},  // Nushu
    {0x20000, 0x2FFFF},  // Supplementary Ideographic Plane
    {0x30000, 0x3FFFF},  // Tertiary Ideographic Plane
}};

constexpr std::uint32_t word_categories = U_GC_L_MASK | U_GC_M_MASK | U_GC_N_MASK;

}  // namespace

bool in_bigram_range(char32_t c) {
  if (c < 0x0E00) return false;
  auto it = std::upper_bound(bigram_ranges.begin(), bigram_ranges.end(), c,
                             [](char32_t v, const Range& r) { return v < r.first; });
  return it != bigram_ranges.begin() && c <= std::prev(it)->last;
}

namespace {

CharClass classify_with_icu(char32_t c) {
  if ((U_GET_GC_MASK(static_cast<UChar32>(c)) & word_categories) == 0) return CharClass::separator;
  return in_bigram_range(c) ? CharClass::bigram : CharClass::word;
}

}  // namespace

const CharClass* bmp_classes() {
  // Never freed: a daemon thread of a Python program may fingerprint while exit() runs the static
  // destructors.
  static const CharClass* const bmp = [] {
    auto* t = new CharClass[0x10000];
    for (char32_t b = 0; b < 0x10000; ++b) t[b] = b < 0x80 ? ascii_classes[b] : classify_with_icu(b);
    return t;
  }();
  return bmp;
}

CharClass classify(char32_t c) {
  if (c < 0x80) return ascii_classes[c];
  return c < 0x10000 ? bmp_classes()[c] : classify_with_icu(c);
}

}  // namespace simdex::text
