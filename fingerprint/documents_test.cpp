#include "fingerprint/documents.h"

#include <doctest/doctest.h>

#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "fingerprint/random_json_line.h"
#include "simdex/error.h"
#include "simdex/keys.h"

using simdex::Document;
using simdex::DocumentFormat;
using simdex::text::DocumentReader;

namespace {
struct Doc {
  std::uint64_t id;
  std::string text;
  bool operator==(const Doc&) const = default;
};

std::vector<Doc> read_all(const std::string& input, DocumentFormat format, std::string id = "id",
                          std::string text = "text") {
  std::istringstream in(input);
  DocumentReader r(in, "test.jsonl", format, id, text);
  std::vector<Doc> out;
  Document d;
  while (r.next(d)) out.push_back({d.id, std::string(d.text)});
  return out;
}

// The message of the simdex::Error that reading throws, or "" when none.
std::string error_of(const std::string& input) {
  try {
    read_all(input, DocumentFormat::jsonl);
  } catch (const simdex::Error& e) {
    CHECK(e.code() == simdex::errc::input);
    return e.what();
  }
  return "";
}
}  // namespace

TEST_CASE("JSON Lines") {
  const auto docs = read_all(
      "{\"id\": 7, \"text\": \"hello\"}\n"
      "\n"
      "  \r\n"
      "{\"text\": \"caf\\u00e9 \\\"quoted\\\"\", \"id\": 18446744073709551615, \"extra\": [1]}\r\n",
      DocumentFormat::jsonl);
  REQUIRE(docs.size() == 2);
  CHECK(docs[0] == Doc{7, "hello"});
  CHECK(docs[1] == Doc{18446744073709551615ULL, "caf\xC3\xA9 \"quoted\""});
}

TEST_CASE("JSON Lines with other field names") {
  CHECK(read_all("{\"doc\": 1, \"body\": \"x\"}\n", DocumentFormat::jsonl, "doc", "body") ==
        std::vector<Doc>{{1, "x"}});
}

TEST_CASE("malformed JSON Lines name the line") {
  const std::string ok = "{\"id\": 1, \"text\": \"a\"}\n";
  CHECK(error_of(ok + "{\"id\": 2, \"text\": \"b\"\n").find("test.jsonl:2: not valid JSON") !=
        std::string::npos);
  CHECK(error_of(ok + ok + "[1, 2]\n").find("test.jsonl:3: expected a JSON object") != std::string::npos);
  CHECK(error_of("{\"id\": 1}\n").find(":1: no field \"text\"") != std::string::npos);
  // An id is an integer 0..2^64-1 or a string key (spec/KEYS.md); a missing one is the line number.
  const std::string not_id = ":1: field \"id\" must be a string (a key) or an integer in 0..2^64-1";
  CHECK(error_of("{\"id\": -1, \"text\": \"a\"}\n").find(not_id) != std::string::npos);
  CHECK(error_of("{\"id\": 1.5, \"text\": \"a\"}\n").find(not_id) != std::string::npos);
  CHECK(error_of("{\"id\": true, \"text\": \"a\"}\n").find(not_id) != std::string::npos);
  CHECK(error_of("{\"id\": [1], \"text\": \"a\"}\n").find(not_id) != std::string::npos);
  CHECK(error_of("{\"id\": 18446744073709551616, \"text\": \"a\"}\n").find(not_id) != std::string::npos);
  // nlohmann reads 2^64 as a double: the message says so and how to keep such an id
  CHECK(error_of("{\"id\": 18446744073709551616, \"text\": \"a\"}\n").find("beyond 2^64-1 (read as") !=
        std::string::npos);
  CHECK(error_of("{\"id\": 1.5, \"text\": \"a\"}\n").find("quote it: a string is a key") !=
        std::string::npos);
  CHECK(error_of("{\"text\": \"a\"}\n").empty());
  CHECK(error_of("{\"id\": 1, \"text\": 5}\n").find(":1: field \"text\" must be a JSON string") !=
        std::string::npos);
  // A number beyond a double is nlohmann's out_of_range, not a parse_error (found by fuzz_input).
  CHECK(
      error_of(ok + "{\"id\": 1, \"text\": \"a\", \"x\": 102e4979}\n").find("test.jsonl:2: not valid JSON") !=
      std::string::npos);
  CHECK(error_of(ok) == "");
}

TEST_CASE("ill-formed UTF-8 in JSON Lines is replaced, not rejected") {
  CHECK(read_all("{\"id\": 3, \"text\": \"a\xFF"
                 "b\xE4\xB8\"}\n",
                 DocumentFormat::jsonl) == std::vector<Doc>{{3,
                                                             "a\xEF\xBF\xBD"
                                                             "b\xEF\xBF\xBD"}});
}

TEST_CASE("an escaped lone surrogate in JSON Lines is U+FFFD, as its raw bytes would be") {
  const std::string R = "\xEF\xBF\xBD";
  CHECK(read_all(R"({"id": 1, "text": "ab\ud800cd"})"
                 "\n"
                 R"({"id": 2, "text": "\uDC00x\uD83D"})"
                 "\n",
                 DocumentFormat::jsonl) == std::vector<Doc>{{1, "ab" + R + "cd"}, {2, R + "x" + R}});
  // A pair, an escaped backslash before "uD800", and a key with a lone surrogate.
  CHECK(read_all(R"({"id": 3, "text": "\uD83D\uDE00 \\uD800"})"
                 "\n",
                 DocumentFormat::jsonl) == std::vector<Doc>{{3, "\xF0\x9F\x98\x80 \\uD800"}});
  CHECK(read_all(R"({"id": "k\udfff", "text": "t"})"
                 "\n",
                 DocumentFormat::jsonl) == std::vector<Doc>{{simdex::key_id("k" + R), "t"}});
}

TEST_CASE("plain lines: every line is a document, id = 0-based line number") {
  CHECK(read_all("first\r\n\nthird", DocumentFormat::lines) ==
        std::vector<Doc>{{0, "first"}, {1, ""}, {2, "third"}});
  CHECK(read_all("", DocumentFormat::lines).empty());
}

namespace {
// What reading one JSON line gives: the document, or the error's message.
struct Reading {
  std::string error;
  std::uint64_t id = 0, line = 0;
  simdex::IdKind id_kind = simdex::IdKind::integer;
  std::string key, text;
  bool operator==(const Reading&) const = default;
};
Reading read_line_as(const std::string& line, bool fast_json, const std::string& id_field = "id",
                     const std::string& text_field = "text") {
  std::istringstream in("\n" + line + "\n");  // line 2: the line number shows in ids and errors
  DocumentReader r(in, "t.jsonl", DocumentFormat::jsonl, id_field, text_field, std::size_t{64} << 20, nullptr,
                   fast_json);
  Reading got;
  try {
    Document d;
    if (!r.next(d)) return got;
    got = {"", d.id, d.line, d.id_kind, std::string(d.key), std::string(d.text)};
  } catch (const simdex::Error& e) {
    got.error = e.what();
  }
  return got;
}

}  // namespace

TEST_CASE("simdjson's reading of JSON Lines is nlohmann's: the same documents, the same errors") {
  std::mt19937_64 rng(2026);
  std::size_t documents = 0;
  for (int i = 0; i < 20000; ++i) {
    const std::string line = simdex::test::random_json_line(rng);
    CAPTURE(line);
    const Reading slow = read_line_as(line, false);
    REQUIRE(read_line_as(line, true) == slow);
    documents += slow.error.empty();
  }
  CHECK(documents > 1000);  // valid lines of every kind were among them, not only errors
  // The field names are the options': the same name for both fields (the text is the key too),
  // names that need escapes.
  CHECK(read_line_as(R"({"text":"a"})", false, "text", "text").text == "a");
  for (const auto& [id, text] : {std::pair{"text", "text"}, std::pair{"é", "t\"x"}, std::pair{"", "text"}})
    for (const char* line :
         {R"({"text":"a","é":7,"t\"x":"b","":"k"})", R"({"text":"k2"})", R"({"":3,"text":"c"})"})
      CHECK(read_line_as(line, true, id, text) == read_line_as(line, false, id, text));
}

TEST_CASE("JSON Lines: what lies deeper than a record's fields is not kept; nesting is bounded") {
  // A field of many small values, and one of deep nesting (each held as a tree cost many times its
  // bytes: a 60 MB line, 2.3 GB): the document is read, by either parser, as it was.
  std::string wide = R"({"id":"k","other":[)";
  for (int i = 0; i < 200000; ++i) wide += "[1,{\"a\":2}],";
  wide += R"(0],"text":"the text"})";
  const std::string deep =
      R"({"text":"the text","x":)" + std::string(50000, '[') + std::string(50000, ']') + "}";
  for (const std::string& line : {wide, deep})
    for (const bool fast : {false, true}) {
      const Reading r = read_line_as(line, fast);
      CHECK(r.error.empty());
      CHECK(r.text == "the text");
    }
  CHECK(read_line_as(wide, false).key == "k");
  const std::string deeper =
      R"({"text":"t","x":)" + std::string(100001, '[') + std::string(100001, ']') + "}";
  CHECK(read_line_as(deeper, false).error == "input: t.jsonl:2: JSON nested deeper than 100000 levels");
  // The id field is kept whole: its error shows it. -0 is not the unsigned 0 (nlohmann dumps it "0").
  CHECK(read_line_as(R"({"id":{"a":[1,{"b":2}]},"text":"t"})", false)
            .error.ends_with(R"(not {"a":[1,{"b":2}]})"));
  CHECK(read_line_as(R"({"id":-0,"text":"t"})", false).error.ends_with("0..2^64-1, not -0"));
  CHECK(read_line_as(R"({"id":-3,"text":"t"})", false).error.ends_with("0..2^64-1, not -3"));
}
