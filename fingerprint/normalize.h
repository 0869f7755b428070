// Unicode normalization and case folding (spec/FINGERPRINT.md step 2): toNFKC_Casefold through ICU.
#pragma once

#include <unicode/uversion.h>  // declares the (versioned) icu namespace

#include <cstddef>
#include <string>
#include <string_view>

U_NAMESPACE_BEGIN
class ByteSink;
class Normalizer2;
U_NAMESPACE_END

namespace simdex::text {

class Normalizer {
 public:
  // Throws std::runtime_error when ICU's normalization data cannot be loaded.
  Normalizer();

  // Replaces `out` with toNFKC_Casefold(in). `in` must be well-formed UTF-8. ICU takes at most
  // 2^31-1 bytes at once, so longer texts go in chunks, cut at normalization boundaries (which no
  // composition reaches across) so that the result is the same; a chunk is at most `max_chunk`
  // bytes unless no boundary lies within them.
  void normalize(std::string_view in, std::string& out, std::size_t max_chunk = std::size_t{1} << 30) const;

  // The same without the shortcuts of ASCII and of code points mapped one at a time: what they must
  // agree with (tests).
  void normalize_with_icu(std::string_view in, std::string& out, std::size_t max_chunk) const;

 private:
  // Where the next chunk ends: a normalization boundary, at most max_chunk bytes in when possible.
  std::size_t chunk_end(std::string_view in, std::size_t max_chunk) const;
  // Whether `in` holds a long run of combining marks (after mapping), which ICU would reorder in
  // quadratic time; such a text is normalized from its sorted_decomposition instead.
  bool has_long_mark_run(std::string_view in) const;
  // `in` mapped and its marks put in canonical order, in linear time: what normalizing it, and
  // normalizing `in`, give alike.
  void sorted_decomposition(std::string_view in, std::string& out) const;
  // Replaces `out` with toNFKC_Casefold(in) a code point at a time, when every code point of `in`
  // has a normalization boundary before it; else returns false (`out` then holds a part of it).
  bool normalize_by_code_point(std::string_view in, std::string& out) const;
  // `in` normalized into `sink` by ICU, in chunks of at most max_chunk bytes cut at boundaries.
  void normalize_pieces(std::string_view in, icu::ByteSink& sink, std::size_t max_chunk) const;

  const icu::Normalizer2* nfkc_cf_;
};

}  // namespace simdex::text
