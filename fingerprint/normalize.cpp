#include "fingerprint/normalize.h"

#include <unicode/bytestream.h>
#include <unicode/normalizer2.h>
#include <unicode/utf8.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>

#include "simdex/error.h"

namespace simdex::text {

namespace {

bool all_ascii(std::string_view s) {
  std::size_t i = 0;
  for (; i + 8 <= s.size(); i += 8) {
    std::uint64_t w;
    std::memcpy(&w, s.data() + i, 8);
    if (w & 0x8080808080808080ULL) return false;
  }
  for (; i < s.size(); ++i)
    if (static_cast<unsigned char>(s[i]) >= 0x80) return false;
  return true;
}

}  // namespace

std::size_t Normalizer::chunk_end(std::string_view in, std::size_t max_chunk) const {
  auto boundary_at = [&](std::size_t pos) {
    std::size_t j = pos;
    UChar32 c;
    U8_NEXT_UNSAFE(in.data(), j, c);
    return nfkc_cf_->hasBoundaryBefore(c);
  };
  auto is_start = [&](std::size_t pos) { return !U8_IS_TRAIL(static_cast<unsigned char>(in[pos])); };
  // The last boundary at or before max_chunk, if any past the first code point...
  for (std::size_t cut = max_chunk; cut > 0; --cut)
    if (is_start(cut) && boundary_at(cut)) return cut;
  // ...else the first one after it, within what ICU accepts at once.
  const std::size_t limit = std::min<std::size_t>(in.size(), INT32_MAX);
  for (std::size_t cut = max_chunk + 1; cut < limit; ++cut)
    if (is_start(cut) && boundary_at(cut)) return cut;
  if (in.size() <= limit) return in.size();
  // Over 2^31 bytes without a single boundary (one base character with two billion combining
  // marks): no exact split exists; cut at a code point start, the one inexact case.
  std::size_t cut = limit;
  while (!is_start(cut)) --cut;
  return cut;
}

Normalizer::Normalizer() {
  UErrorCode status = U_ZERO_ERROR;
  nfkc_cf_ = icu::Normalizer2::getNFKCCasefoldInstance(status);
  if (U_FAILURE(status) || nfkc_cf_ == nullptr)
    throw Error(errc::io, std::string("ICU NFKC_Casefold data unavailable: ") + u_errorName(status));
}

void Normalizer::normalize(std::string_view in, std::string& out, std::size_t max_chunk) const {
  // For ASCII, toNFKC_Casefold only lowercases A-Z: no ASCII character composes, decomposes or is
  // default-ignorable. This shortcut is most of the throughput on English text.
  if (all_ascii(in)) {
    out.resize(in.size());
    for (std::size_t i = 0; i < in.size(); ++i) {
      const char c = in[i];
      out[i] = (c >= 'A' && c <= 'Z') ? static_cast<char>(c + ('a' - 'A')) : c;
    }
    return;
  }
  normalize_with_icu(in, out, max_chunk);
}

void Normalizer::normalize_with_icu(std::string_view in, std::string& out, std::size_t max_chunk) const {
  out.clear();
  icu::StringByteSink<std::string> sink(&out);
  while (!in.empty()) {
    const std::size_t cut = in.size() <= max_chunk ? in.size() : chunk_end(in, max_chunk);
    UErrorCode status = U_ZERO_ERROR;
    nfkc_cf_->normalizeUTF8(0, icu::StringPiece(in.data(), static_cast<int32_t>(cut)), sink, nullptr, status);
    if (U_FAILURE(status))
      throw Error(errc::input, std::string("ICU normalization failed: ") + u_errorName(status));
    in.remove_prefix(cut);
  }
}

}  // namespace simdex::text
