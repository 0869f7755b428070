#include "fingerprint/utf8.h"

#include <doctest/doctest.h>

#include <random>
#include <string>

using simdex::text::is_valid_utf8;
using simdex::text::repair_utf8;

namespace {
std::string repaired(std::string_view s) {
  std::string out;
  repair_utf8(s, out);
  return out;
}
const std::string R = "\xEF\xBF\xBD";  // U+FFFD
}  // namespace

TEST_CASE("escaped lone surrogates in JSON become \\uFFFD, pairs and other escapes stay") {
  auto fixed = [](std::string json) {
    simdex::text::repair_lone_surrogate_escapes(json);
    return json;
  };
  CHECK(fixed(R"("a\uD800b")") == R"("a\uFFFDb")");
  CHECK(fixed(R"("\udc00\udbff")") == R"("\uFFFD\uFFFD")");
  CHECK(fixed(R"("\uD83D\uDE00")") == R"("\uD83D\uDE00")");              // a pair
  CHECK(fixed(R"("\uD83D\uD83D\uDE00")") == R"("\uFFFD\uD83D\uDE00")");  // a high one, then a pair
  CHECK(fixed(R"("\\uD800")") == R"("\\uD800")");                        // an escaped backslash, then text
  CHECK(fixed(R"("\\\uD800")") == R"("\\\uFFFD")");
  CHECK(fixed(R"("\uD80")") == R"("\uD80")");  // no escape of four digits: left to the parser
  CHECK(fixed("\"\\") == "\"\\");              // a backslash at the end
  std::string unchanged = R"({"text": "\u00e9\n\"\uD7FF\uE000"})";
  CHECK(!simdex::text::repair_lone_surrogate_escapes(unchanged));
}

TEST_CASE("well-formed UTF-8 passes unchanged") {
  for (std::string s : {"", "plain ascii", "caf\xC3\xA9", "\xE4\xB8\xAD\xE6\x96\x87", "\xF0\x9F\x98\x80",
                        "\xF4\x8F\xBF\xBF", "\xED\x9F\xBF", "\xEE\x80\x80"}) {
    CHECK(is_valid_utf8(s));
    CHECK(repaired(s) == s);
  }
  CHECK(is_valid_utf8(std::string("nul\0inside", 10)));
}

TEST_CASE("Unicode Table 3-8: one U+FFFD per maximal subpart") {
  // The Unicode Standard's own example (chapter 3, "U+FFFD Substitution of Maximal Subparts").
  const std::string in = "\x61\xF1\x80\x80\xE1\x80\xC2\x62\x80\x63\x80\xBF\x64";
  CHECK_FALSE(is_valid_utf8(in));
  CHECK(repaired(in) == "a" + R + R + R + "b" + R + "c" + R + R + "d");
}

TEST_CASE("each kind of ill-formed sequence") {
  CHECK(repaired("\x80") == R);                          // lone continuation byte
  CHECK(repaired("\xC0\xAF") == R + R);                  // overlong lead C0 never starts a sequence
  CHECK(repaired("\xE0\x80\xAF") == R + R + R);          // overlong 3-byte: E0 needs A0..BF next
  CHECK(repaired("\xED\xA0\x80") == R + R + R);          // surrogate U+D800
  CHECK(repaired("\xF4\x90\x80\x80") == R + R + R + R);  // above U+10FFFF
  CHECK(repaired("\xF5\x80") == R + R);
  CHECK(repaired("\xFF") == R);
  CHECK(repaired("ab\xE4\xB8") == "ab" + R);  // truncated at the end: one replacement
  CHECK(repaired("\xF0\x9F\x98") == R);
  CHECK(repaired("\xE4\xB8x") == R + "x");  // the offending byte starts again
  CHECK(repaired("\xC3\xC3\xA9") == R + "\xC3\xA9");
}

TEST_CASE("repair always yields valid UTF-8 and is idempotent") {
  std::mt19937_64 rng(42);
  std::string s, once, twice;
  for (int round = 0; round < 2000; ++round) {
    s.resize(rng() % 40);
    for (char& c : s) c = static_cast<char>(rng() % 4 == 0 ? 0x80 + rng() % 0x80 : rng() % 256);
    repair_utf8(s, once);
    CHECK(is_valid_utf8(once));
    repair_utf8(once, twice);
    CHECK(twice == once);
    CHECK(is_valid_utf8(s) == (once == s));
  }
}

TEST_CASE("validation agrees with repair on long text with one flaw of each kind, at every offset") {
  // Text long enough for the validator's 64-byte blocks; a flaw anywhere in it.
  const std::string good = "caf\xC3\xA9 \xE4\xB8\xAD\xE6\x96\x87 \xF0\x9F\x98\x80 plain ascii words ";
  const std::vector<std::string> flaws = {
      "\x80",         "\xC0\x80",         "\xC1\xBF",         "\xE0\x80\x80",     "\xED\xA0\x80",
      "\xED\xBF\xBF", "\xF0\x80\x80\x80", "\xF4\x90\x80\x80", "\xF5\x80\x80\x80", "\xFF",
      "\xC3",         "\xE4\xB8",         "\xF0\x9F\x98",     "\xEF\xBF\xBF",     "\xF4\x8F\xBF\xBF"};
  std::string text, once;
  for (const std::string& flaw : flaws)
    for (std::size_t at = 0; at <= 3 * good.size(); at += 3) {
      text = good + good + good;
      text.insert(std::min(at, text.size()), flaw);
      repair_utf8(text, once);
      CAPTURE(at);
      CAPTURE(flaw);
      CHECK(is_valid_utf8(text) == (once == text));
    }
}

TEST_CASE("decoding well-formed UTF-8") {
  const std::string s = "a\xC3\xA9\xE4\xB8\xAD\xF0\x9F\x98\x80";
  std::size_t i = 0;
  CHECK(simdex::text::next_code_point(s, i) == U'a');
  CHECK(simdex::text::next_code_point(s, i) == U'\u00E9');
  CHECK(simdex::text::next_code_point(s, i) == U'\u4E2D');
  CHECK(simdex::text::next_code_point(s, i) == U'\U0001F600');
  CHECK(i == s.size());
}
