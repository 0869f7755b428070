// Word segmentation of normalized text (spec/FINGERPRINT.md step 3). Words are runs of letters,
// marks and numbers; scripts written without spaces between words (Han, Kana, Thai, ...) give
// overlapping pairs of characters instead, because dictionary segmentation cannot be specified.
#pragma once

#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string_view>
#include <vector>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "fingerprint/utf8.h"

namespace simdex::text {

enum class CharClass : std::uint8_t {
  separator,  // everything else: spaces, punctuation, symbols, controls, unassigned
  word,       // General_Category L*, M* or N*, outside the bigram ranges
  bigram,     // General_Category L*, M* or N*, inside the bigram ranges of the spec
};

// True for a code point in one of the spec's fixed bigram ranges (whatever its category).
bool in_bigram_range(char32_t c);

CharClass classify(char32_t c);

// The classes of the Basic Multilingual Plane, a table of 64 KiB made once per process on first use
// (ICU's category lookup and the range search were 13% of the time of Chinese text). Looked up
// once a text: classify() checks that the table is made at every call.
const CharClass* bmp_classes();

inline CharClass classify(const CharClass* bmp, char32_t c) { return c < 0x10000 ? bmp[c] : classify(c); }

// ASCII's classes, fixed forever: letters and digits are words, everything else separates.
inline constexpr auto ascii_classes = [] {
  std::array<CharClass, 128> t{};
  for (unsigned c = 0; c < 128; ++c)
    if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')) t[c] = CharClass::word;
  return t;
}();

// The class of the code point at s[i] of well-formed UTF-8; moves i past it. `bmp` is bmp_classes().
[[gnu::always_inline]] inline CharClass next_class(const CharClass* bmp, std::string_view s, std::size_t& i) {
  const auto b = static_cast<unsigned char>(s[i]);
  if (b < 0x80) {
    ++i;
    return ascii_classes[b];
  }
  return classify(bmp, next_code_point(s, i));
}

// The ASCII bytes of 64 bytes of text: bit j stands for byte j. A byte of a multi-byte code point
// is in neither mask; a byte past the end counts as a separator.
struct AsciiMasks {
  std::uint64_t separator = 0;  // ASCII, not a letter or digit
  std::uint64_t word = 0;       // ASCII letter or digit
};

inline AsciiMasks ascii_masks(const char* p, std::size_t available) {
  AsciiMasks m;
#if defined(__SSE2__)
  if (available >= 64) {
    for (unsigned k = 0; k < 4; ++k) {
      const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + 16 * k));
      // Signed compares: bytes from 0x80 up are negative, so neither digits nor letters; OR 0x20
      // maps A-Z onto a-z and moves no other byte into a-z.
      const __m128i lower = _mm_or_si128(v, _mm_set1_epi8(0x20));
      const __m128i digit =
          _mm_and_si128(_mm_cmpgt_epi8(v, _mm_set1_epi8('0' - 1)), _mm_cmplt_epi8(v, _mm_set1_epi8('9' + 1)));
      const __m128i letter = _mm_and_si128(_mm_cmpgt_epi8(lower, _mm_set1_epi8('a' - 1)),
                                           _mm_cmplt_epi8(lower, _mm_set1_epi8('z' + 1)));
      const auto word = static_cast<std::uint64_t>(_mm_movemask_epi8(_mm_or_si128(digit, letter)));
      const auto high = static_cast<std::uint64_t>(_mm_movemask_epi8(v));
      m.word |= word << (16 * k);
      m.separator |= (~(word | high) & 0xFFFF) << (16 * k);
    }
    return m;
  }
#endif
  for (std::size_t j = 0; j < 64; ++j) {
    const std::uint64_t bit = std::uint64_t{1} << j;
    if (j >= available) {
      m.separator |= bit;
    } else if (const auto b = static_cast<unsigned char>(p[j]); b < 0x80) {
      (ascii_classes[b] == CharClass::word ? m.word : m.separator) |= bit;
    }
  }
  return m;
}

// Finds the ends of runs of ASCII separators and of ASCII letters and digits 64 bytes at a time,
// instead of a byte and a branch at a time (a branch mispredicted at the end of each word): English
// text fingerprinted 1.2x faster with this scanner alone (bench/RESULTS.md, "Fingerprinting on one
// core").
class AsciiScanner {
 public:
  explicit AsciiScanner(std::string_view text) : text_(text) {}

  // The first position from i on that is not an ASCII separator (text.size() if none).
  std::size_t skip_separators(std::size_t i) {
    return find(i, [](const AsciiMasks& m) { return ~m.separator; });
  }
  // The first position from i on that is not an ASCII letter or digit (text.size() if none).
  std::size_t skip_word(std::size_t i) {
    return find(i, [](const AsciiMasks& m) { return ~m.word; });
  }
  // The masks of the 64 bytes from i (i < text.size()), kept for the searches that follow.
  const AsciiMasks& masks_from(std::size_t i) {
    if (i != base_) {
      base_ = i;
      masks_ = ascii_masks(text_.data() + i, text_.size() - i);
    }
    return masks_;
  }

 private:
  template <class Stops>
  std::size_t find(std::size_t i, Stops stops) {
    while (i < text_.size()) {
      if (i < base_ || i - base_ >= 64) masks_from(i);
      const std::uint64_t found = stops(masks_) >> (i - base_);
      if (found != 0) return std::min(i + static_cast<std::size_t>(std::countr_zero(found)), text_.size());
      i = base_ + 64;
    }
    return text_.size();
  }

  std::string_view text_;
  std::size_t base_ = SIZE_MAX;  // masks_ describe bytes [base_, base_ + 64)
  AsciiMasks masks_;
};

// The end of a word whose characters before i were word characters: ASCII runs 64 bytes at a
// time, other code points one at a time.
inline std::size_t end_of_word(std::string_view text, AsciiScanner& ascii, const CharClass* bmp,
                               std::size_t i) {
  for (;;) {
    i = ascii.skip_word(i);
    if (i >= text.size() || static_cast<unsigned char>(text[i]) < 0x80) return i;
    std::size_t j = i;
    if (next_class(bmp, text, j) != CharClass::word) return i;
    i = j;
  }
}

// Emits the ASCII words that lie whole within the 64 bytes from `i` (a token boundary) and before
// any byte of a multi-byte code point, all from one pair of masks; returns where it stopped: the
// start of a word that may go on past them, the first multi-byte code point, or i + 64. Nothing
// when fewer than 64 bytes are left (the one-token-at-a-time path takes the tail) or when a
// multi-byte code point lies within 8 bytes of i (as in text of other scripts, whose masks would
// hold little).
template <class Emit>
std::size_t emit_ascii_words(std::string_view text, AsciiScanner& scanner, std::size_t i, Emit& emit) {
  if (text.size() - i < 64) return i;
  std::uint64_t first8;
  std::memcpy(&first8, text.data() + i, 8);
  if ((first8 & 0x8080808080808080ULL) != 0) return i;
  const AsciiMasks m = scanner.masks_from(i);  // kept by the scanner for the token after these words
  const std::uint64_t ascii = m.word | m.separator;
  const unsigned limit = ascii == ~std::uint64_t{0} ? 64 : static_cast<unsigned>(std::countr_zero(~ascii));
  std::uint64_t words = limit == 64 ? m.word : m.word & ((std::uint64_t{1} << limit) - 1);
  while (words != 0) {
    const auto start = static_cast<unsigned>(std::countr_zero(words));
    const std::uint64_t after = ~words >> start;  // ones where the word has ended
    if (after == 0) return i + start;             // it reaches the 64th byte: it may go on
    const auto end = start + static_cast<unsigned>(std::countr_zero(after));
    if (end >= limit) return i + start;  // it reaches a multi-byte code point: it may go on
    emit(text.substr(i + start, end - start));
    words &= ~std::uint64_t{0} << end;  // end < limit <= 64
  }
  return i + limit;
}

// Splits normalized, well-formed UTF-8 into tokens and calls emit(std::string_view token) for each,
// in order. `offsets` is scratch space, reused to avoid allocating per run.
template <class Emit>
void for_each_token(std::string_view text, std::vector<std::size_t>& offsets, Emit&& emit) {
  AsciiScanner ascii(text);
  const CharClass* bmp = bmp_classes();
  std::size_t i = 0;
  while (i < text.size()) {
    // Most words at once, then the next token, whatever it is, one code point at a time.
    i = emit_ascii_words(text, ascii, i, emit);
    if ((i = ascii.skip_separators(i)) >= text.size()) break;
    const std::size_t start = i;
    const CharClass cls = next_class(bmp, text, i);
    if (cls == CharClass::separator) continue;
    if (cls == CharClass::word) {
      i = end_of_word(text, ascii, bmp, i);
      emit(text.substr(start, i - start));
      continue;
    }
    // A bigram run: remember where each code point starts, then emit each adjacent pair.
    offsets.clear();
    offsets.push_back(start);
    std::size_t end = i;
    while (i < text.size()) {
      std::size_t j = i;
      if (next_class(bmp, text, j) != CharClass::bigram) break;
      offsets.push_back(i);
      end = i = j;
    }
    offsets.push_back(end);
    if (offsets.size() == 2) {
      emit(text.substr(start, end - start));  // a lone character is its own token
    } else {
      for (std::size_t k = 0; k + 2 < offsets.size(); ++k)
        emit(text.substr(offsets[k], offsets[k + 2] - offsets[k]));
    }
  }
}

}  // namespace simdex::text
