// Unicode normalization and case folding (spec/FINGERPRINT.md step 2): toNFKC_Casefold through ICU.
#pragma once

#include <unicode/uversion.h>  // declares the (versioned) icu namespace

#include <cstddef>
#include <functional>
#include <string>
#include <string_view>
#include <unordered_map>

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
  // Not thread-safe (it keeps the normalizations of recent segments): one Normalizer a thread.
  void normalize(std::string_view in, std::string& out, std::size_t max_chunk = std::size_t{1} << 30);

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
  // Appends toNFKC_Casefold(in) to `out` a code point at a time, but for each segment of code
  // points that interact (from a code point with a normalization boundary before it to the next
  // one), which goes through normalize_segment.
  void normalize_by_code_point(std::string_view in, std::string& out, std::size_t max_chunk);
  // Appends toNFKC_Casefold(segment) to `out`: a segment seen lately from the cache, else by ICU.
  void normalize_segment(std::string_view segment, std::string& out, std::size_t max_chunk);
  bool has_boundary_before(char32_t c) const;  // ICU's hasBoundaryBefore, from a page of answers
  // `in` normalized into `sink` by ICU, in chunks of at most max_chunk bytes cut at boundaries.
  void normalize_pieces(std::string_view in, icu::ByteSink& sink, std::size_t max_chunk) const;

  // Normalizations of recent short segments, by their bytes (found by string_view, not copied).
  struct SegmentHash {
    using is_transparent = void;
    std::size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
  };
  std::unordered_map<std::string, std::string, SegmentHash, std::equal_to<>> segments_;
  std::string segment_out_;  // scratch

  const icu::Normalizer2* nfkc_cf_;
};

}  // namespace simdex::text
