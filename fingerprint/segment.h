// Word segmentation of normalized text (spec/FINGERPRINT.md step 3). Words are runs of letters,
// marks and numbers; scripts written without spaces between words (Han, Kana, Thai, ...) give
// overlapping pairs of characters instead, because dictionary segmentation cannot be specified.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

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

// ASCII's classes, fixed forever: letters and digits are words, everything else separates.
inline constexpr auto ascii_classes = [] {
  std::array<CharClass, 128> t{};
  for (unsigned c = 0; c < 128; ++c)
    if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')) t[c] = CharClass::word;
  return t;
}();

// The class of the code point at s[i] of well-formed UTF-8; moves i past it. Inline for ASCII,
// which is most of the bytes of most texts.
inline CharClass next_class(std::string_view s, std::size_t& i) {
  const auto b = static_cast<unsigned char>(s[i]);
  if (b < 0x80) {
    ++i;
    return ascii_classes[b];
  }
  return classify(next_code_point(s, i));
}

// Splits normalized, well-formed UTF-8 into tokens and calls emit(std::string_view token) for each,
// in order. `offsets` is scratch space, reused to avoid allocating per run.
template <class Emit>
void for_each_token(std::string_view text, std::vector<std::size_t>& offsets, Emit&& emit) {
  std::size_t i = 0;
  while (i < text.size()) {
    const std::size_t start = i;
    const CharClass cls = next_class(text, i);
    if (cls == CharClass::separator) continue;
    if (cls == CharClass::word) {
      std::size_t end = i;
      while (i < text.size()) {
        std::size_t j = i;
        if (next_class(text, j) != CharClass::word) break;
        end = i = j;
      }
      emit(text.substr(start, end - start));
      continue;
    }
    // A bigram run: remember where each code point starts, then emit each adjacent pair.
    offsets.clear();
    offsets.push_back(start);
    std::size_t end = i;
    while (i < text.size()) {
      std::size_t j = i;
      if (next_class(text, j) != CharClass::bigram) break;
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
