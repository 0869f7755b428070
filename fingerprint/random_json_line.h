// Random JSON Lines for tests, valid and not (test-only).
#pragma once

#include <initializer_list>
#include <random>
#include <string>
#include <vector>

namespace simdex::test {

// Random JSON Lines, valid and not, built from the pieces where two JSON readers could differ:
// escapes and surrogates, repeated and escaped field names, ids of every kind of number, nesting,
// whitespace, stray bytes.
inline std::string random_json_line(std::mt19937_64& rng) {
  auto pick = [&](std::initializer_list<const char*> xs) {
    return std::string(xs.begin()[rng() % xs.size()]);
  };
  auto string_value = [&] {
    std::string s = "\"";
    for (int i = 0, n = static_cast<int>(rng() % 12); i < n; ++i)
      s += pick({"a",
                 "Z",
                 " ",
                 "\\n",
                 "\\t",
                 "\\\"",
                 "\\\\",
                 "\\/",
                 "\\b",
                 "\\f",
                 "\\r",
                 "\\u00e9",
                 "\\u0000",
                 "\\ud83d\\ude00",
                 "\\ud800",
                 "\\udc00",
                 "\\u12",
                 "\\x",
                 "é",
                 "日本",
                 "\xf0\x9f\x98\x80",
                 "\xff",
                 "\t",
                 "\x01",
                 "\\uD834\\uDD1E",
                 "\\u0041"});
    return s + "\"";
  };
  auto id_value = [&] {
    return pick({"0",
                 "-0",
                 "1",
                 "42",
                 "-5",
                 "9223372036854775807",
                 "9223372036854775808",
                 "18446744073709551615",
                 "18446744073709551616",
                 "1.0",
                 "1e3",
                 "0.5",
                 "-1e2",
                 "01",
                 "null",
                 "true",
                 "false",
                 "[]",
                 "{}",
                 "\"k\"",
                 "\"key \\u00e9\"",
                 "\"\"",
                 "1E400",
                 "- 1"});
  };
  auto other_value = [&] {
    return pick({"1", "-2.5e-3", "1e999", "123456789012345678901234567890", "[1,[2,[3]]]", "{\"a\":{}}",
                 "null", "true", "\"x\"", "[", "{\"a\" 1}", "nul", "[1,]", "\"\\ud800\""});
  };
  std::vector<std::string> fields;
  for (int i = 0, n = static_cast<int>(rng() % 4); i < n; ++i) {
    switch (rng() % 6) {
      case 0:
        fields.push_back("\"text\":" + string_value());
        break;
      case 1:
        fields.push_back("\"id\":" + id_value());
        break;
      case 2:
        fields.push_back(pick({"\"te\\u0078t\"", "\"\\u0069d\"", "\"Text\"", "\"text \""}) + ":" +
                         (rng() % 2 ? string_value() : id_value()));
        break;
      case 3:
        fields.push_back("\"other\":" + other_value());
        break;
      default:
        fields.push_back("\"text\":" + string_value() + ",\"id\":" + id_value());
        break;
    }
  }
  std::string line = pick({"", " ", "\t", "\xef\xbb\xbf"}) + "{";
  for (std::size_t i = 0; i < fields.size(); ++i) line += (i ? pick({",", " , ", ",,"}) : "") + fields[i];
  line += "}" + pick({"", " ", "\t", " x", "}", "\r"});
  switch (rng() % 20) {
    case 0:
      return "[" + line + "]";
    case 1:
      return string_value();
    case 2:
      return std::string(2000, '[') + std::string(2000, ']');
    case 3:
      return "{\"text\":\"a\",\"deep\":" + std::string(1500, '[') + std::string(1500, ']') + "}";
    default:
      return line;
  }
}

}  // namespace simdex::test
