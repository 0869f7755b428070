// What FingerprintSettings say to a user, and the refusal to compare fingerprints made two ways.
#include <algorithm>
#include <string>

#include "simdex/error.h"
#include "simdex/fingerprint.h"

namespace simdex {

std::string describe(const FingerprintSettings& s) {
  std::string out;
  if (s.fingerprint_version != 1) out = "fingerprint version " + std::to_string(s.fingerprint_version) + ", ";
  out += "shingle " + std::to_string(s.shingle_size) + ", weighting ";
  out += s.weighting == Weighting::binary ? "binary" : "frequency";
  out += ", stopwords ";
  std::vector<std::string> english = english_stopwords();  // lowercase ASCII: already normalized
  std::sort(english.begin(), english.end());
  if (s.stopwords.empty())
    out += "none";
  else if (s.stopwords == english)
    out += "english";
  else
    out += std::to_string(s.stopwords.size()) + (s.stopwords.size() == 1 ? " word" : " words");
  return out;
}

void require_same_settings(const std::optional<FingerprintSettings>& index_settings,
                           const FingerprintSettings& query_settings, const std::string& what) {
  if (!index_settings || *index_settings == query_settings) return;
  std::string hint =
      "give the index's settings (command line: --shingle, --weighting, --stopwords, --stopwords-file; "
      "Python: shingle=, weighting=, stopwords=)";
  if (describe(*index_settings) == describe(query_settings)) hint = "the stopword lists differ; " + hint;
  throw Error(errc::settings_mismatch, what + " was built from texts fingerprinted with " +
                                           describe(*index_settings) + ", these texts with " +
                                           describe(query_settings) +
                                           ": their fingerprints are not "
                                           "comparable; " +
                                           hint);
}

}  // namespace simdex
