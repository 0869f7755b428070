#include "fingerprint/normalize.h"

#include <unicode/bytestream.h>
#include <unicode/normalizer2.h>
#include <unicode/uchar.h>
#include <unicode/unistr.h>
#include <unicode/utf8.h>
#include <unicode/uversion.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <bit>
#include <bitset>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "fingerprint/utf8.h"
#include "format/endian.h"
#include "simdex/error.h"
#include "simdex/fingerprint.h"

namespace simdex::text {

namespace {

void append_utf8(std::string& out, UChar32 c) {
  char bytes[4];
  std::size_t n = 0;
  U8_APPEND_UNSAFE(bytes, n, c);
  out.append(bytes, n);
}

bool all_ascii(std::string_view s) { return skip_ascii(s, 0) == s.size(); }

// Appends `ascii` to `out` with A-Z lowercased: toNFKC_Casefold of ASCII (no ASCII character
// composes, decomposes or is default-ignorable). Through raw pointers and without a branch, so that
// the compiler vectorizes it (writing out[i] reloaded the string's pointer at every byte).
void append_ascii_casefolded(std::string& out, std::string_view ascii) {
  const std::size_t at = out.size();
  out.resize(at + ascii.size());
  const char* from = ascii.data();
  char* to = out.data() + at;
  for (std::size_t i = 0; i < ascii.size(); ++i) {
    const auto c = static_cast<unsigned char>(from[i]);
    to[i] = static_cast<char>(c + ((static_cast<unsigned char>(c - 'A') < 26) << 5));
  }
}

// toNFKC_Casefold of single code points, for those with a normalization boundary before them, in
// pages of 256 made when first needed (ICU's answers, a page in some 15 µs) and shared by the
// process's Normalizers. A text whose every code point has a boundary before it normalizes as the
// concatenation of its code points' mappings: ICU's boundary means exactly that the text before the
// code point and the text from it on normalize independently.
class CodePointMappings {
 public:
  struct Page {
    std::bitset<256> boundary;                // a normalization boundary before the code point
    std::bitset<256> same;                    // its mapping is itself
    std::array<std::uint16_t, 257> offset{};  // its mapping: bytes [offset[i], offset[i + 1])
    std::string bytes;
  };

  static const Page& page(const icu::Normalizer2& n, UChar32 c) {
    static std::array<std::atomic<const Page*>, 0x110000 / 256> pages{};  // never freed
    std::atomic<const Page*>& slot = pages[static_cast<std::size_t>(c) >> 8];
    const Page* p = slot.load(std::memory_order_acquire);
    if (p != nullptr) return *p;
    const Page* made = make(n, c & ~0xFF);
    if (slot.compare_exchange_strong(p, made, std::memory_order_acq_rel)) return *made;
    delete made;  // another thread made it first
    return *p;
  }

 private:
  static const Page* make(const icu::Normalizer2& n, UChar32 first) {
    auto page = std::make_unique<Page>();
    for (UChar32 i = 0; i < 256; ++i) {
      const UChar32 c = first + i;
      page->offset[static_cast<std::size_t>(i)] = static_cast<std::uint16_t>(page->bytes.size());
      if (U_IS_SURROGATE(c) || !n.hasBoundaryBefore(c)) continue;
      std::string self, mapped;
      append_utf8(self, c);
      icu::StringByteSink<std::string> sink(&mapped);
      UErrorCode status = U_ZERO_ERROR;
      n.normalizeUTF8(0, icu::StringPiece(self.data(), static_cast<int32_t>(self.size())), sink, nullptr,
                      status);
      if (U_FAILURE(status)) continue;  // no boundary recorded: it goes through ICU in its segment
      page->boundary[static_cast<std::size_t>(i)] = true;
      page->same[static_cast<std::size_t>(i)] = mapped == self;
      if (mapped != self) page->bytes += mapped;
    }
    page->offset[256] = static_cast<std::uint16_t>(page->bytes.size());
    return page.release();
  }
};

// Runs of combining marks longer than this take the path of sorted_decomposition (UAX #15's
// Stream-Safe Text Format allows 30 in a row; real text has a handful).
constexpr std::size_t kLongMarkRun = 32;

// Segments of interacting code points up to this size have their normalizations kept, up to this
// many of them (a few hundred KiB).
constexpr std::size_t kCachedSegmentBytes = 64;
constexpr std::size_t kCachedSegments = 4096;

}  // namespace

bool Normalizer::has_long_mark_run(std::string_view in) const {
  // A code point continues a run of marks when it has no boundary before it (a combining mark, or a
  // character whose mapping starts with one); a default-ignorable one maps to nothing, so the marks
  // on either side meet: it neither starts a run nor ends one. For the BMP both properties come
  // from tables made once (a lookup where ICU's calls cost 8% of normalizing CJK text).
  struct Tables {
    std::bitset<0x10000> mark, ignorable;
  };
  static const Tables bmp = [n = nfkc_cf_] {  // ICU's instance: one for the process
    Tables t;
    for (UChar32 c = 0; c < 0x10000; ++c) {
      t.mark[c] = !n->hasBoundaryBefore(c);
      t.ignorable[c] = u_hasBinaryProperty(c, UCHAR_DEFAULT_IGNORABLE_CODE_POINT);
    }
    return t;
  }();
  std::size_t run = 0;
  for (std::size_t i = 0; i < in.size();) {
    if (static_cast<unsigned char>(in[i]) < 0x80) {
      run = 0;
      ++i;
      continue;
    }
    UChar32 c;
    U8_NEXT_UNSAFE(in.data(), i, c);
    const bool bmp_char = c < 0x10000;
    if (bmp_char ? bmp.mark[c] : !nfkc_cf_->hasBoundaryBefore(c)) {
      if (++run > kLongMarkRun) return true;
    } else if (run > 0 &&
               !(bmp_char ? bmp.ignorable[c] : u_hasBinaryProperty(c, UCHAR_DEFAULT_IGNORABLE_CODE_POINT))) {
      run = 0;
    }
  }
  return false;
}

void Normalizer::sorted_decomposition(std::string_view in, std::string& out) const {
  // Each code point replaced by its NFKC_Casefold mapping, then each run of combining marks
  // stably sorted by combining class: the canonical order (Unicode 3.11) that the normalization
  // would give them. Normalizing this gives the same text as normalizing `in`, while ICU's
  // reordering, which inserts each mark into place and costs O(n^2) on a run of n marks of mixed
  // classes, finds every mark already in place.
  std::vector<std::pair<uint8_t, UChar32>> run;  // (class, code point) of the current run
  icu::UnicodeString mapping;
  out.clear();
  auto flush_run = [&] {
    std::stable_sort(run.begin(), run.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    for (const auto& [cc, c] : run) append_utf8(out, c);
    run.clear();
  };
  auto emit = [&](UChar32 c) {
    const uint8_t cc = nfkc_cf_->getCombiningClass(c);
    if (cc == 0) {
      flush_run();
      append_utf8(out, c);
    } else {
      run.emplace_back(cc, c);
    }
  };
  for (std::size_t i = 0; i < in.size();) {
    UChar32 c;
    U8_NEXT_UNSAFE(in.data(), i, c);
    if (!nfkc_cf_->getDecomposition(c, mapping)) {
      emit(c);
      continue;
    }
    for (int32_t k = 0; k < mapping.length();) {
      const UChar32 m = mapping.char32At(k);
      emit(m);
      k += U16_LENGTH(m);
    }
  }
  flush_run();
}

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

void Normalizer::normalize(std::string_view in, std::string& out, std::size_t max_chunk) {
  out.clear();
  // ASCII is most of the bytes of most texts: its runs casefolded here, other code points mapped
  // one at a time, and only the stretches where code points interact (a combining mark and the
  // character before it, conjoining jamo) go through ICU.
  if (all_ascii(in)) {
    append_ascii_casefolded(out, in);
    return;
  }
  normalize_by_code_point(in, out, max_chunk);
}

bool Normalizer::has_boundary_before(char32_t c) const {
  return CodePointMappings::page(*nfkc_cf_, static_cast<UChar32>(c)).boundary[c & 0xFF];
}

void Normalizer::normalize_segment(std::string_view segment, std::string& out, std::size_t max_chunk) {
  // Short segments are a syllable and its marks (Devanagari's virama, Arabic's vowel marks): few
  // distinct ones fill most of a text, so their normalizations are kept, and the cache emptied
  // when full rather than grown without bound.
  const bool cached = segment.size() <= kCachedSegmentBytes;
  if (cached) {
    if (const auto it = segments_.find(segment); it != segments_.end()) {
      out += it->second;
      return;
    }
  }
  normalize_with_icu(segment, segment_out_, max_chunk);
  out += segment_out_;
  if (!cached) return;
  if (segments_.size() >= kCachedSegments) segments_.clear();
  segments_.emplace(segment, segment_out_);
}

void Normalizer::normalize_by_code_point(std::string_view in, std::string& out, std::size_t max_chunk) {
  // BMP code points that map to themselves with a boundary before them: inert ones (a boundary
  // after them too) and those without a mapping (Cyrillic и, which a breve after it would compose
  // into й). Made once, in about 1.5 ms; the others are looked up in their page.
  static const std::bitset<0x10000> bmp_copied = [n = nfkc_cf_] {  // ICU's instance: one for the process
    std::bitset<0x10000> t;
    icu::UnicodeString mapping;
    for (UChar32 c = 0; c < 0x10000; ++c)
      t[static_cast<std::size_t>(c)] =
          !U_IS_SURROGATE(c) &&
          (n->isInert(c) || (n->hasBoundaryBefore(c) && !n->getDecomposition(c, mapping)));
    return t;
  }();
  std::size_t copy_from = 0;  // in[copy_from, i): code points that map to themselves, not yet copied
  // The last code point appended as its mapping (not copied) ends at copy_from; out held
  // mapped_out bytes before it.
  std::size_t mapped_out = 0;
  for (std::size_t i = 0; i < in.size();) {
    if (static_cast<unsigned char>(in[i]) < 0x80) {
      // ASCII but for capitals maps to itself: skipped 8 bytes at a time up to the first capital
      // or non-ASCII byte. For bytes below 0x80, adding 0x3F sets the top bit from 'A' on and
      // adding 0x25 from '[' on; a byte from 0x80 up may carry into the bytes after it, never before.
      constexpr std::uint64_t kOnes = 0x0101010101010101ULL, kTops = 0x8080808080808080ULL;
      while (i + 8 <= in.size()) {
        const std::uint64_t w = format::load_le64(reinterpret_cast<const std::uint8_t*>(in.data() + i));
        const std::uint64_t stops = (w | ((w + 0x3F * kOnes) & ~(w + 0x25 * kOnes))) & kTops;
        if (stops != 0) {
          i += static_cast<std::size_t>(std::countr_zero(stops)) / 8;
          break;
        }
        i += 8;
      }
      if (i == in.size()) break;
      const auto b = static_cast<unsigned char>(in[i]);
      if (b >= 0x80) continue;
      if (static_cast<unsigned char>(b - 'A') < 26) {
        out.append(in.data() + copy_from, i - copy_from);
        mapped_out = out.size();
        out.push_back(static_cast<char>(b + ('a' - 'A')));
        copy_from = i + 1;
      }
      ++i;
      continue;
    }
    std::size_t next = i;
    const auto c = static_cast<UChar32>(next_code_point(in, next));
    if (c < 0x10000 && bmp_copied[static_cast<std::size_t>(c)]) {
      i = next;
      continue;
    }
    const CodePointMappings::Page& page = CodePointMappings::page(*nfkc_cf_, c);
    const auto k = static_cast<std::size_t>(c & 0xFF);
    if (!page.boundary[k]) {
      // c interacts with the code point before it (which has a boundary before it, as the text's
      // start is one): from there to the next code point with a boundary before it, the segment
      // normalizes apart from the rest of the text, through ICU. The code point before c is taken
      // back from out (or from what waits to be copied) first.
      std::size_t start = i;
      while (start > 0 && U8_IS_TRAIL(static_cast<unsigned char>(in[--start]))) {
      }
      if (start < copy_from)  // it was appended as its mapping
        out.resize(mapped_out);
      else
        out.append(in.data() + copy_from, start - copy_from);
      std::size_t end = next;
      while (end < in.size() && static_cast<unsigned char>(in[end]) >= 0x80) {
        std::size_t after = end;
        const char32_t d = next_code_point(in, after);
        if ((d < 0x10000 && bmp_copied[d]) || has_boundary_before(d)) break;
        end = after;
      }
      normalize_segment(in.substr(start, end - start), out, max_chunk);
      copy_from = i = end;
      continue;
    }
    if (!page.same[k]) {
      out.append(in.data() + copy_from, i - copy_from);
      mapped_out = out.size();
      out.append(page.bytes.data() + page.offset[k], page.offset[k + 1] - page.offset[k]);
      copy_from = next;
    }
    i = next;
  }
  out.append(in.data() + copy_from, in.size() - copy_from);
}

void Normalizer::normalize_with_icu(std::string_view in, std::string& out, std::size_t max_chunk) const {
  out.clear();
  icu::StringByteSink<std::string> sink(&out);
  std::string sorted;
  while (!in.empty()) {
    const std::size_t cut = in.size() <= max_chunk ? in.size() : chunk_end(in, max_chunk);
    const std::string_view chunk = in.substr(0, cut);
    if (has_long_mark_run(chunk)) {
      sorted_decomposition(chunk, sorted);
      normalize_pieces(sorted, sink, max_chunk);  // the mappings may have made it longer
    } else {
      normalize_pieces(chunk, sink, max_chunk);
    }
    in.remove_prefix(cut);
  }
}

void Normalizer::normalize_pieces(std::string_view in, icu::ByteSink& sink, std::size_t max_chunk) const {
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

namespace simdex {

std::string unicode_version() {
  UVersionInfo version;
  u_getUnicodeVersion(version);
  char text[U_MAX_VERSION_STRING_LENGTH];
  u_versionToString(version, text);
  return text;
}

}  // namespace simdex
