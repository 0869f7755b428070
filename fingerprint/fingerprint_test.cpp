#include "simdex/fingerprint.h"

#include <doctest/doctest.h>
#include <xxhash.h>

#include <random>
#include <string>
#include <vector>

#include "simdex/error.h"

using simdex::Fingerprinter;
using simdex::FingerprintOptions;
using V = std::vector<std::string>;

namespace {
FingerprintOptions shingles(unsigned w) {
  FingerprintOptions o;
  o.shingle_size = w;
  return o;
}

// Step 6 written out the slow way, independently of the library's bit-count trick.
std::uint64_t tally(const V& features) {
  std::int64_t t[64] = {};
  for (const auto& f : features) {
    const std::uint64_t h = XXH3_64bits_withSeed(f.data(), f.size(), 0);
    for (int b = 0; b < 64; ++b) t[b] += ((h >> b) & 1) ? 1 : -1;
  }
  std::uint64_t fp = 0;
  for (int b = 0; b < 64; ++b)
    if (t[b] > 0) fp |= std::uint64_t{1} << b;
  return fp;
}
}  // namespace

TEST_CASE("features are shingles of normalized tokens joined by one space") {
  Fingerprinter f(shingles(3));
  CHECK(f.features("The quick, brown FOX jumps!") ==
        V{"the quick brown", "quick brown fox", "brown fox jumps"});
  CHECK(f.features("one two") == V{"one two"});  // fewer tokens than a shingle: one feature
  CHECK(f.features("") == V{});
  CHECK(f.features(" \t--- ") == V{});
  Fingerprinter one(shingles(1));
  CHECK(one.features("a b a") == V{"a", "b", "a"});
}

TEST_CASE("the fingerprint is the tally of the features' XXH3 hashes") {
  std::mt19937_64 rng(3);
  const V words{
      "alpha", "beta", "gamma", "delta", "\xC3\xA9t\xC3\xA9", "\xE4\xB8\xAD\xE6\x96\x87\xE5\xAD\x97", "x"};
  for (unsigned w = 1; w <= 4; ++w) {
    Fingerprinter f(shingles(w));
    for (int round = 0; round < 200; ++round) {
      std::string text;
      for (int n = static_cast<int>(rng() % 30); n > 0; --n) text += words[rng() % words.size()] + " ";
      CHECK(f.fingerprint(text) == tally(f.features(text)));
    }
  }
}

TEST_CASE("long texts: the tally is exact past many features") {
  std::mt19937_64 rng(5);
  std::string text;
  for (int n = 0; n < 5000; ++n) {
    text += 'w';
    text += std::to_string(rng() % 700);
    text += ' ';
  }
  for (unsigned w = 1; w <= 3; ++w) {
    Fingerprinter f(shingles(w));
    CHECK(f.fingerprint(text) == tally(f.features(text)));
  }
}

TEST_CASE("empty and token-free texts give 0") {
  Fingerprinter f;
  CHECK(f.fingerprint("") == 0);
  CHECK(f.fingerprint("  ... !!! \n") == 0);
  CHECK(f.fingerprint("\xFF\xFE") == 0);  // only replacement characters, which are separators
}

TEST_CASE("case, width, composition and ignorables do not change the fingerprint") {
  Fingerprinter f;
  const auto base = f.fingerprint("cafe creme brulee hello world");
  CHECK(f.fingerprint("CAFE Creme BRULEE hello WORLD") == base);
  CHECK(f.fingerprint("  cafe, creme; brulee -- hello   world!") == base);
  CHECK(f.fingerprint("\xEF\xBD\x83\xEF\xBD\x81\xEF\xBD\x86\xEF\xBD\x85"
                      " creme brulee hello world") == base);
  CHECK(f.fingerprint("ca\xC2\xAD"
                      "fe creme brulee hello world") == base);           // soft hyphen
  CHECK(f.fingerprint("caf\xC3\xA9") == f.fingerprint("cafe\xCC\x81"));  // NFC = NFD
  CHECK(f.fingerprint("caf\xC3\xA9") != f.fingerprint("cafe"));          // accents are kept
}

TEST_CASE("word order and content matter") {
  Fingerprinter f;
  CHECK(f.fingerprint("one two three four five") != f.fingerprint("five four three two one"));
  Fingerprinter bag(shingles(1));
  CHECK(bag.fingerprint("one two three four five") == bag.fingerprint("five four three two one"));
}

TEST_CASE("weighting: frequency counts repeats, binary does not") {
  FingerprintOptions b = shingles(1);
  b.weighting = simdex::Weighting::binary;
  Fingerprinter freq(shingles(1)), bin(b);
  CHECK(bin.fingerprint("apple banana") == bin.fingerprint("apple apple apple banana"));
  CHECK(bin.fingerprint("apple apple apple banana") == tally(V{"apple", "banana"}));
  CHECK(freq.fingerprint("apple apple apple banana") == tally(V{"apple", "apple", "apple", "banana"}));
  CHECK(freq.fingerprint("apple apple apple banana") == freq.fingerprint("apple"));  // 3 > 1 everywhere
}

TEST_CASE("stopwords are dropped before shingling, compared after normalization") {
  FingerprintOptions o = shingles(2);
  o.stopwords = {"THE", "of"};
  Fingerprinter f(o);
  CHECK(f.features("The house of the Rising Sun") == V{"house rising", "rising sun"});
  o.stopwords = simdex::english_stopwords();
  CHECK(Fingerprinter(o).features("to be or not to be") == V{});
  CHECK(simdex::english_stopwords().size() == 33);
}

TEST_CASE("stopword_problem: empty exactly when the entry drops a token") {
  // The oracle is step 4 itself: an entry can match iff the text made of it alone loses a token.
  const V entries{"the",  "The",    "ＴＨＥ", "don't", "e-mail",   " the", "the.",    "--",    "",
                  "手机", "手机号", "的",     "naïve", "new york", "\xff", "x\u0301", "\u00ad"};
  for (const std::string& entry : entries) {
    CAPTURE(entry);
    FingerprintOptions o = shingles(1);
    const V tokens = Fingerprinter(o).features(entry);
    o.stopwords = {entry};
    const bool drops = !tokens.empty() && Fingerprinter(o).features(entry).size() < tokens.size();
    CHECK(simdex::stopword_problem(entry).empty() == drops);
  }
  const std::string never = "; it never matches (a stopword is one word: spec/FINGERPRINT.md step 4)";
  CHECK(simdex::stopword_problem("don't") == "\"don't\" is 2 tokens: \"don\" \"t\"" + never);
  CHECK(simdex::stopword_problem("--") == "\"--\" has no letter, mark or number: it is no token" + never);
  CHECK(simdex::stopword_problem(" The") == "\" The\" holds separators around its one token \"the\"" + never);
  const std::string long_entry = std::string(100, 'a') + " b c d e f g h i j";
  CHECK(simdex::stopword_problem(long_entry) ==
        "\"" + std::string(80, 'a') + "...\" is 10 tokens: \"" + std::string(80, 'a') +
            "...\" \"b\" \"c\" \"d\" \"e\" \"f\" \"g\" \"h\" ..." + never);
}

TEST_CASE("options out of range are rejected") {
  CHECK_THROWS_WITH_AS(Fingerprinter(shingles(0)), doctest::Contains("usage: shingle size"), simdex::Error);
  CHECK_THROWS_WITH_AS(Fingerprinter(shingles(FingerprintOptions::max_shingle_size + 1)),
                       doctest::Contains("usage: shingle size"), simdex::Error);
  CHECK_NOTHROW(Fingerprinter(shingles(FingerprintOptions::max_shingle_size)));
}

TEST_CASE("any bytes are accepted, and a reused Fingerprinter gives what a fresh one gives") {
  std::mt19937_64 rng(11);
  Fingerprinter reused;
  std::string s;
  for (int round = 0; round < 3000; ++round) {
    s.resize(rng() % 200);
    for (char& c : s)
      c = static_cast<char>(rng() % 3 == 0 ? rng() % 256 : 'a' + rng() % 26 - (rng() % 8 == 0 ? 64 : 0));
    const auto fp = reused.fingerprint(s);
    if (round % 50 == 0) CHECK(fp == simdex::fingerprint(s));
  }
}

TEST_CASE("near-duplicates are close, unrelated texts are far") {
  const std::string a =
      "It was the best of times, it was the worst of times, it was the age of wisdom, it was the age "
      "of foolishness, it was the epoch of belief, it was the epoch of incredulity, it was the season "
      "of Light, it was the season of Darkness, it was the spring of hope, it was the winter of despair";
  std::string b = a;
  b.replace(b.find("wisdom"), 6, "knowledge");
  const std::string c =
      "Call me Ishmael. Some years ago, never mind how long precisely, having little or no money in my "
      "purse, and nothing particular to interest me on shore, I thought I would sail about a little";
  Fingerprinter f;
  const int near = __builtin_popcountll(f.fingerprint(a) ^ f.fingerprint(b));
  const int far = __builtin_popcountll(f.fingerprint(a) ^ f.fingerprint(c));
  CHECK(near <= 12);
  CHECK(far >= 16);
}
