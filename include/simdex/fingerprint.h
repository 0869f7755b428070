// Text fingerprints: the 64-bit simhash of a document, computed exactly as spec/FINGERPRINT.md says,
// so that any implementation of the spec (and any later simdex) gives the same bits for the same
// text and the same options.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "simdex/error.h"
#include "simdex/export.h"

namespace simdex {

// How much a feature counts in the per-bit tally (spec step 6).
enum class Weighting {
  frequency,  // every occurrence of a feature counts once (weight = frequency); the default
  binary,     // every distinct feature counts once, however often it occurs
};

struct FingerprintOptions {
  // Tokens per feature (spec step 5): 1 = single tokens, 3 = word 3-shingles. 1..max_shingle_size.
  unsigned shingle_size = 3;
  Weighting weighting = Weighting::frequency;
  // Tokens dropped before shingling (spec step 4). Entries are normalized like the text (UTF-8
  // repair, NFKC_Casefold), so "The" and "the" are the same entry. Empty = keep every token.
  std::vector<std::string> stopwords{};

  static constexpr unsigned max_shingle_size = 16;
};

// How an index's fingerprints were made from text, in a canonical form: the options that change a
// fingerprint (spec/FORMAT.md §5.2, the FINGERPRINT_SETTINGS section). Two settings are equal when
// their fingerprints of the same text are equal.
struct FingerprintSettings {
  std::uint32_t fingerprint_version = 1;  // the version of spec/FINGERPRINT.md
  unsigned shingle_size = 3;
  Weighting weighting = Weighting::frequency;
  std::vector<std::string> stopwords;  // as steps 1 and 2 normalize them: distinct, ascending bytes
  bool operator==(const FingerprintSettings&) const = default;
};

// The settings of `options` (their stopwords normalized). Throws Error(usage) as Fingerprinter does.
SIMDEX_EXPORT FingerprintSettings fingerprint_settings(const FingerprintOptions& options);
// "shingle 3, weighting frequency, stopwords none" ("english", or "N words" for another list).
SIMDEX_EXPORT std::string describe(const FingerprintSettings& settings);
// Throws Error(settings_mismatch) naming both settings when an index's recorded settings (nullopt:
// none recorded, anything goes) differ from those the query texts are fingerprinted with; `what`
// names the index in the message.
SIMDEX_EXPORT void require_same_settings(const std::optional<FingerprintSettings>& index_settings,
                                         const FingerprintSettings& query_settings, const std::string& what);

// The Unicode version of the character data text fingerprints use (the ICU simdex runs with), e.g.
// "15.0": spec/FINGERPRINT.md's golden vectors are of 15.0; characters assigned later may give
// other fingerprints with other versions (its "Unicode version").
SIMDEX_EXPORT std::string unicode_version();

// The built-in English stopword list that spec/FINGERPRINT.md names "english".
SIMDEX_EXPORT const std::vector<std::string>& english_stopwords();

// Why the stopword entry `word` can never match (spec step 4 drops a token equal to an entry, and
// steps 1-3 make this entry no token, several, or one with separators around it), e.g. `"don't" is
// 2 tokens: "don" "t"; it never matches (...)`; empty when it can match. The entry is quoted as given. For
// the places that take a user's list (the CLI warns, Python warns); Fingerprinter accepts any entry, as the
// spec does.
SIMDEX_EXPORT std::string stopword_problem(std::string_view word);

// Computes fingerprints with reusable scratch buffers: after the first few documents, fingerprinting
// allocates nothing per token. Not thread-safe; use one Fingerprinter per thread.
class SIMDEX_EXPORT Fingerprinter {
 public:
  // Throws simdex::Error: errc::usage for options out of range, errc::io when ICU's normalization
  // data cannot be loaded.
  explicit Fingerprinter(FingerprintOptions options = {});
  ~Fingerprinter();
  // A moved-from Fingerprinter may only be assigned to or destroyed.
  Fingerprinter(Fingerprinter&&) noexcept;
  Fingerprinter& operator=(Fingerprinter&&) noexcept;

  // The fingerprint of a UTF-8 text. Any byte string is accepted: invalid UTF-8 is repaired, never
  // rejected. Text with no token gives 0.
  std::uint64_t fingerprint(std::string_view utf8);

  // The features of a text, in order, with repeats, as the bytes that are hashed (spec step 5).
  // For tests, debugging and the spec's worked examples; allocates.
  std::vector<std::string> features(std::string_view utf8);

  const FingerprintOptions& options() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// One-off convenience; prefer a Fingerprinter for many texts.
SIMDEX_EXPORT std::uint64_t fingerprint(std::string_view utf8, const FingerprintOptions& options = {});

// out[i] = the fingerprint of texts[i], the same bits as Fingerprinter, on `threads` threads (0: all
// cores; at most 4096), each with its own Fingerprinter. Throws Error(usage) when the spans' sizes differ or
// the options are out of range; `out` is then unspecified.
SIMDEX_EXPORT void fingerprint_all(std::span<const std::string_view> texts, std::span<std::uint64_t> out,
                                   const FingerprintOptions& options = {}, unsigned threads = 0);

}  // namespace simdex
