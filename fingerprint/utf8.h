// UTF-8 repair and decoding (spec/FINGERPRINT.md step 1). Repair follows the Unicode "maximal
// subpart" practice, the same as the WHATWG Encoding Standard, so other languages' decoders agree.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

namespace simdex::text {

inline constexpr char32_t replacement_character = 0xFFFD;

// Length of the well-formed sequence starting at s[i] (i < s.size()), or 0 when it is ill-formed;
// then `bad` is the length of its maximal subpart (at least 1), the bytes one U+FFFD replaces.
std::size_t sequence_length(std::string_view s, std::size_t i, std::size_t& bad);

// True when `s` is well-formed UTF-8 (no surrogates, no overlongs, nothing above U+10FFFF).
bool is_valid_utf8(std::string_view s);

// Replaces `out` with `in` where every maximal subpart of an ill-formed sequence became U+FFFD.
void repair_utf8(std::string_view in, std::string& out);

// In a JSON text: rewrites every \uXXXX escape of a surrogate that is not half of a pair (\uD800-
// \uDBFF followed by \uDC00-\uDFFF) as \uFFFD, in place (same length), as step 1 repairs such a
// code point in raw bytes; JSON parsers refuse it, and Python's json.dumps writes it for text read
// with errors="surrogateescape". Returns whether anything changed.
bool repair_lone_surrogate_escapes(std::string& json);

// A text that starts with a UTF-16 byte order mark (FF FE: little-endian, FE FF: big-endian),
// decoded to UTF-8 into `out`, without the mark (an unpaired surrogate, or an odd last byte, becomes
// U+FFFD). False, `out` untouched, for a text without such a mark.
bool decode_utf16_with_bom(std::string_view in, std::string& out);

// Index of the first byte at or after i that is not ASCII, checking 8 bytes at a time.
inline std::size_t skip_ascii(std::string_view s, std::size_t i) {
  while (i + 8 <= s.size()) {
    std::uint64_t w;
    std::memcpy(&w, s.data() + i, 8);
    if (w & 0x8080808080808080ULL) break;
    i += 8;
  }
  while (i < s.size() && static_cast<unsigned char>(s[i]) < 0x80) ++i;
  return i;
}

// Decodes the code point at s[i] of well-formed UTF-8 and moves i past it.
[[gnu::always_inline]] inline char32_t next_code_point(std::string_view s, std::size_t& i) {
  const auto b0 = static_cast<unsigned char>(s[i]);
  if (b0 < 0x80) {
    ++i;
    return b0;
  }
  auto cont = [&](std::size_t k) {
    return static_cast<char32_t>(static_cast<unsigned char>(s[i + k]) & 0x3F);
  };
  char32_t c;
  if (b0 < 0xE0) {
    c = (static_cast<char32_t>(b0 & 0x1F) << 6) | cont(1);
    i += 2;
  } else if (b0 < 0xF0) {
    c = (static_cast<char32_t>(b0 & 0x0F) << 12) | (cont(1) << 6) | cont(2);
    i += 3;
  } else {
    c = (static_cast<char32_t>(b0 & 0x07) << 18) | (cont(1) << 12) | (cont(2) << 6) | cont(3);
    i += 4;
  }
  return c;
}

}  // namespace simdex::text
