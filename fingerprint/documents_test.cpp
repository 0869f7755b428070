#include "fingerprint/documents.h"

#include <doctest/doctest.h>

#include <sstream>
#include <string>
#include <vector>

#include "simdex/error.h"

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
  CHECK(error_of("{\"text\": \"a\"}\n").empty());
  CHECK(error_of("{\"id\": 1, \"text\": 5}\n").find(":1: field \"text\" must be a JSON string") !=
        std::string::npos);
  CHECK(error_of("{\"id\": 1, \"text\": \"\\ud800\"}\n").find(":1: not valid JSON") != std::string::npos);
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

TEST_CASE("plain lines: every line is a document, id = 0-based line number") {
  CHECK(read_all("first\r\n\nthird", DocumentFormat::lines) ==
        std::vector<Doc>{{0, "first"}, {1, ""}, {2, "third"}});
  CHECK(read_all("", DocumentFormat::lines).empty());
}
