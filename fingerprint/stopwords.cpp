// The built-in "english" stopword list: the 33 words of Apache Lucene's classic English stop set,
// a widely used, published list. spec/FINGERPRINT.md repeats it; the two must not differ.
#include "simdex/fingerprint.h"

namespace simdex {

const std::vector<std::string>& english_stopwords() {
  // Never destroyed: a daemon thread of a Python program may make a Fingerprinter while exit() runs
  // the static destructors.
  static const std::vector<std::string>& words = *new std::vector<std::string>{
      "a",   "an",    "and",  "are",   "as",    "at",   "be",   "but", "by",  "for",  "if",
      "in",  "into",  "is",   "it",    "no",    "not",  "of",   "on",  "or",  "such", "that",
      "the", "their", "then", "there", "these", "they", "this", "to",  "was", "will", "with"};
  return words;
}

}  // namespace simdex
