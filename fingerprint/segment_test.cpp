#include "fingerprint/segment.h"

#include <doctest/doctest.h>

#include <string>
#include <vector>

using simdex::text::CharClass;
using simdex::text::classify;

namespace {
std::vector<std::string> tokens(std::string_view text) {
  std::vector<std::size_t> scratch;
  std::vector<std::string> out;
  simdex::text::for_each_token(text, scratch, [&](std::string_view t) { out.emplace_back(t); });
  return out;
}
using V = std::vector<std::string>;
}  // namespace

TEST_CASE("character classes") {
  CHECK(classify(U'a') == CharClass::word);
  CHECK(classify(U'7') == CharClass::word);
  CHECK(classify(U' ') == CharClass::separator);
  CHECK(classify(U'\'') == CharClass::separator);
  CHECK(classify(U'_') == CharClass::separator);
  CHECK(classify(U'\u00E9') == CharClass::word);    // é, Ll
  CHECK(classify(U'\u0301') == CharClass::word);    // combining acute, Mn
  CHECK(classify(U'\u00B2') == CharClass::word);    // superscript two, No
  CHECK(classify(U'\u0416') == CharClass::word);    // Cyrillic
  CHECK(classify(U'\u05D0') == CharClass::word);    // Hebrew
  CHECK(classify(U'\uAC00') == CharClass::word);    // Hangul syllable: Korean has spaces
  CHECK(classify(U'\u4E2D') == CharClass::bigram);  // Han
  CHECK(classify(U'\u3042') == CharClass::bigram);  // Hiragana
  CHECK(classify(U'\u30FC') == CharClass::bigram);  // Katakana prolonged sound mark, Lm
  CHECK(classify(U'\u0E01') == CharClass::bigram);  // Thai
  CHECK(classify(U'\U00020000') == CharClass::bigram);
  CHECK(classify(U'\u3002') == CharClass::separator);  // ideographic full stop
  CHECK(classify(U'\u30FB') == CharClass::separator);  // katakana middle dot, Po, in range
  CHECK(classify(U'\uFFFD') == CharClass::separator);  // replacement character, So
  CHECK(classify(U'\U0001F600') == CharClass::separator);
  CHECK(classify(U'\u0378') == CharClass::separator);  // unassigned
}

TEST_CASE("bigram ranges have fixed edges") {
  CHECK_FALSE(simdex::text::in_bigram_range(0x0DFF));
  CHECK(simdex::text::in_bigram_range(0x0E00));
  CHECK(simdex::text::in_bigram_range(0x9FFF));
  CHECK_FALSE(simdex::text::in_bigram_range(0xA000));
  CHECK(simdex::text::in_bigram_range(0x3FFFF));
  CHECK_FALSE(simdex::text::in_bigram_range(0x40000));
  CHECK_FALSE(simdex::text::in_bigram_range(0x3008));
}

TEST_CASE("words are runs of letters, marks and numbers") {
  CHECK(tokens("") == V{});
  CHECK(tokens("  ,.!  ") == V{});
  CHECK(tokens("hello, world") == V{"hello", "world"});
  CHECK(tokens("don't stop-me 42x") == V{"don", "t", "stop", "me", "42x"});
  CHECK(tokens("na\xC3\xAFve caf\xC3\xA9") == V{"na\xC3\xAFve", "caf\xC3\xA9"});
  CHECK(tokens("\xD0\xBC\xD0\xB8\xD1\x80 \xD0\xB4\xD0\xBE") ==
        V{"\xD0\xBC\xD0\xB8\xD1\x80", "\xD0\xB4\xD0\xBE"});
}

TEST_CASE("Han and Kana runs give overlapping character pairs") {
  // 今天天气 -> 今天 天天 天气
  CHECK(tokens("\xE4\xBB\x8A\xE5\xA4\xA9\xE5\xA4\xA9\xE6\xB0\x94") ==
        V{"\xE4\xBB\x8A\xE5\xA4\xA9", "\xE5\xA4\xA9\xE5\xA4\xA9", "\xE5\xA4\xA9\xE6\xB0\x94"});
  // 中 alone -> 中; 中。文 -> 中 文 (punctuation ends the run)
  CHECK(tokens("\xE4\xB8\xAD") == V{"\xE4\xB8\xAD"});
  CHECK(tokens("\xE4\xB8\xAD\xE3\x80\x82\xE6\x96\x87") == V{"\xE4\xB8\xAD", "\xE6\x96\x87"});
  // iPhone手机 -> iphone is a word (already folded here), 手机 a pair
  CHECK(tokens("iphone\xE6\x89\x8B\xE6\x9C\xBA") == V{"iphone", "\xE6\x89\x8B\xE6\x9C\xBA"});
  // ひらがなカタカナ is one run: kana of both kinds pair across the change of script
  CHECK(tokens("\xE3\x81\xB2\xE3\x82\xAB\xE3\x82\xBF").size() == 2);
}

namespace {
// The segmentation rule of spec/FINGERPRINT.md step 3 stated plainly, one code point at a time:
// the oracle for the scanner, which finds ASCII runs 64 bytes at a time.
V reference_tokens(std::string_view text) {
  V out;
  std::size_t i = 0;
  while (i < text.size()) {
    const std::size_t start = i;
    const CharClass cls = classify(simdex::text::next_code_point(text, i));
    if (cls == CharClass::separator) continue;
    std::vector<std::size_t> starts{start};
    for (std::size_t j = i; j < text.size() && classify(simdex::text::next_code_point(text, j)) == cls; i = j)
      starts.push_back(i);
    starts.push_back(i);
    if (cls == CharClass::word || starts.size() == 2)
      out.emplace_back(text.substr(start, i - start));
    else
      for (std::size_t k = 0; k + 2 < starts.size(); ++k)
        out.emplace_back(text.substr(starts[k], starts[k + 2] - starts[k]));
  }
  return out;
}
}  // namespace

TEST_CASE("ASCII masks: every byte value at every position of the 64") {
  for (unsigned value = 0; value < 256; ++value)
    for (std::size_t at = 0; at < 64; ++at)
      for (const std::size_t available : {std::size_t{64}, std::size_t{100}, at + 1}) {
        std::string bytes(std::max<std::size_t>(available, 64), 'a');
        bytes[at] = static_cast<char>(value);
        for (std::size_t j = available; j < bytes.size(); ++j) bytes[j] = '\x01';  // must not be read as such
        const simdex::text::AsciiMasks m = simdex::text::ascii_masks(bytes.data(), available);
        const bool word = value < 0x80 && simdex::text::ascii_classes[value] == CharClass::word;
        CAPTURE(value);
        CAPTURE(at);
        CAPTURE(available);
        CHECK(((m.word >> at) & 1) == (word ? 1u : 0u));
        CHECK(((m.separator >> at) & 1) == (value < 0x80 && !word ? 1u : 0u));
        if (available < 64) CHECK((m.separator >> available) == (~std::uint64_t{0} >> available));
      }
}

TEST_CASE("segmentation agrees with the plain rule on random text of every script class") {
  // Pieces of each kind: ASCII words and separators, 2-byte letters, combining marks, Han, kana and
  // Thai (pairs), 3- and 4-byte separators, a 4-byte ideograph; long runs cross the scanner's 64.
  const std::vector<std::string> pieces = {"a",
                                           "Z",
                                           "7",
                                           "word",
                                           " ",
                                           ",",
                                           "\t",
                                           "-",
                                           "\x7f",
                                           "\xC3\xA9",
                                           "\xCC\x81",
                                           "\xD0\xB4",
                                           "\xE4\xB8\xAD",
                                           "\xE3\x81\x82",
                                           "\xE0\xB8\x81",
                                           "\xF0\x9F\x98\x80",
                                           "\xE3\x80\x82",
                                           "\xF0\xA0\x80\x80",
                                           std::string(70, 'x'),
                                           std::string(70, ' '),
                                           std::string(65, '.')};
  std::uint64_t state = 12345;
  auto next = [&] {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    return state >> 33;
  };
  for (int round = 0; round < 20000; ++round) {
    std::string text;
    const std::size_t count = next() % 120;
    const std::size_t kinds = 1 + next() % pieces.size();  // some texts draw from few pieces
    for (std::size_t p = 0; p < count; ++p) text += pieces[next() % kinds];
    CAPTURE(text);
    REQUIRE(tokens(text) == reference_tokens(text));
  }
}
