#include "fingerprint/utf8.h"

#include <simdjson.h>
#include <unicode/ustring.h>

#include <cstring>
#include <vector>

#include "simdex/error.h"

namespace simdex::text {

std::size_t sequence_length(std::string_view s, std::size_t i, std::size_t& bad) {
  const auto b0 = static_cast<unsigned char>(s[i]);
  if (b0 < 0x80) return 1;
  std::size_t need;
  unsigned char lo = 0x80, hi = 0xBF;  // allowed range of the second byte (Unicode Table 3-7)
  if (b0 >= 0xC2 && b0 <= 0xDF) {
    need = 1;
  } else if (b0 >= 0xE0 && b0 <= 0xEF) {
    need = 2;
    if (b0 == 0xE0) lo = 0xA0;
    if (b0 == 0xED) hi = 0x9F;  // no surrogates
  } else if (b0 >= 0xF0 && b0 <= 0xF4) {
    need = 3;
    if (b0 == 0xF0) lo = 0x90;
    if (b0 == 0xF4) hi = 0x8F;  // nothing above U+10FFFF
  } else {
    bad = 1;  // 80..C1, F5..FF never start a sequence
    return 0;
  }
  for (std::size_t k = 1; k <= need; ++k) {
    if (i + k >= s.size()) {
      bad = k;  // truncated at the end of the text
      return 0;
    }
    const auto b = static_cast<unsigned char>(s[i + k]);
    const bool ok = k == 1 ? (b >= lo && b <= hi) : (b >= 0x80 && b <= 0xBF);
    if (!ok) {
      bad = k;  // the offending byte starts the next attempt
      return 0;
    }
  }
  return need + 1;
}

bool is_valid_utf8(std::string_view s) {
  // simdjson's validator (SIMD, 64 bytes at a time) checks what sequence_length does: the
  // well-formed sequences of Unicode Table 3-7. A byte at a time, this check was 8% of the time of
  // fingerprinting text.
  return simdjson::validate_utf8(s.data(), s.size());
}

void repair_utf8(std::string_view s, std::string& out) {
  out.clear();
  std::size_t i = 0, bad = 0;
  while (i < s.size()) {
    const std::size_t n = sequence_length(s, i, bad);
    if (n != 0) {
      out.append(s.data() + i, n);
      i += n;
    } else {
      out.append("\xEF\xBF\xBD");  // U+FFFD
      i += bad;
    }
  }
}

namespace {
// The code unit of the escape \uXXXX at json[i] (json[i] == '\\'), or -1 when it is none.
long escaped_unit(const std::string& json, std::size_t i) {
  if (i + 6 > json.size() || json[i + 1] != 'u') return -1;
  long unit = 0;
  for (std::size_t k = i + 2; k < i + 6; ++k) {
    const char c = json[k];
    const int digit = c >= '0' && c <= '9'   ? c - '0'
                      : c >= 'a' && c <= 'f' ? c - 'a' + 10
                      : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                             : -1;
    if (digit < 0) return -1;
    unit = unit * 16 + digit;
  }
  return unit;
}
}  // namespace

bool repair_lone_surrogate_escapes(std::string& json) {
  bool changed = false;
  // Every backslash starts an escape (outside strings a backslash is no JSON at all): stepping
  // over each escape whole keeps "\\\\uD800" (an escaped backslash, then text) as it is.
  for (std::size_t i = json.find('\\'); i != std::string::npos && i + 1 < json.size();
       i = json.find('\\', i)) {
    const long unit = escaped_unit(json, i);
    if (unit < 0xD800 || unit > 0xDFFF) {
      i += unit < 0 ? 2 : 6;
      continue;
    }
    if (unit <= 0xDBFF) {
      const long low = escaped_unit(json, i + 6);
      if (low >= 0xDC00 && low <= 0xDFFF) {  // a pair: as it is
        i += 12;
        continue;
      }
    }
    json.replace(i + 2, 4, "FFFD");
    changed = true;
    i += 6;
  }
  return changed;
}

bool decode_utf16_with_bom(std::string_view in, std::string& out) {
  if (in.size() < 2) return false;
  const auto b0 = static_cast<unsigned char>(in[0]), b1 = static_cast<unsigned char>(in[1]);
  const bool little = b0 == 0xFF && b1 == 0xFE, big = b0 == 0xFE && b1 == 0xFF;
  if (!little && !big) return false;
  if (in.size() > (std::size_t{1} << 29))  // ICU's lengths are int32_t: 3 bytes out a unit
    throw Error(errc::input, "a UTF-16 text of more than 512 MiB");
  std::vector<UChar> units((in.size() - 2) / 2);
  for (std::size_t i = 0; i < units.size(); ++i) {
    const auto lo = static_cast<unsigned char>(in[2 + 2 * i + (big ? 1 : 0)]);
    const auto hi = static_cast<unsigned char>(in[2 + 2 * i + (big ? 0 : 1)]);
    units[i] = static_cast<UChar>(hi << 8 | lo);
  }
  // ICU's conversion substitutes U+FFFD for each unpaired surrogate.
  const auto count = static_cast<int32_t>(units.size());
  out.assign(units.size() * 3 + 3, '\0');  // at most 3 UTF-8 bytes a UTF-16 unit
  int32_t length = 0;
  UErrorCode error = U_ZERO_ERROR;
  u_strToUTF8WithSub(out.data(), static_cast<int32_t>(out.size()), &length, units.data(), count, 0xFFFD,
                     nullptr, &error);
  if (U_FAILURE(error)) throw Error(errc::input, std::string("UTF-16 to UTF-8: ") + u_errorName(error));
  out.resize(static_cast<std::size_t>(length));
  if (in.size() % 2 == 1) out += "\xEF\xBF\xBD";  // a last odd byte: U+FFFD
  return true;
}

}  // namespace simdex::text
