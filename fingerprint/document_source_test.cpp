// simdex::DocumentSource: the ids a program linking simdex gets, the same as the CLI's (the CLI's
// own flags and listing file are tested in tests/cli_test.sh).
#include <doctest/doctest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "simdex/documents.h"
#include "simdex/error.h"
#include "tests/test_util.h"

namespace fs = std::filesystem;
using simdex::Document;
using simdex::DocumentFormat;
using simdex::DocumentSource;

namespace {

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

using Docs = std::vector<std::pair<std::uint64_t, std::string>>;

Docs read_all(DocumentSource& source) {
  Docs out;
  Document d;
  while (source.next(d)) out.emplace_back(d.id, std::string(d.text));
  return out;
}

// "code message" of the simdex::Error that opening and reading `input` throws, or "ok".
std::string error_of(const std::string& input, simdex::DocumentOptions options = {}) {
  try {
    DocumentSource source(input, options);
    read_all(source);
  } catch (const simdex::Error& e) {
    return std::string(simdex::errc_name(e.code())) + " " + e.what();
  }
  return "ok";
}

}  // namespace

TEST_CASE("a file is JSON Lines unless told otherwise; plain lines get their line number as id") {
  simdex::test::TempDir t;
  const auto jsonl =
      t.write("docs.jsonl", "{\"id\": 42, \"text\": \"Hello, World!\"}\n\n{\"id\": 7, \"text\": \"\"}\n");
  DocumentSource a(jsonl);
  CHECK(a.format() == DocumentFormat::jsonl);
  CHECK(read_all(a) == Docs{{42, "Hello, World!"}, {7, ""}});
  CHECK(a.paths().empty());

  const auto txt = t.write("docs.txt", "the cat sat\r\n\nsecond line");
  DocumentSource b(txt, {.format = DocumentFormat::lines});
  CHECK(read_all(b) == Docs{{0, "the cat sat"}, {1, ""}, {2, "second line"}});
}

TEST_CASE("a directory: its files in byte order of their relative paths, keyed by them; the key map") {
  simdex::test::TempDir t;
  t.write("in/b.txt", "beta text");
  t.write("in/a.txt", "alpha text");
  t.write("in/sub/c.txt", "gamma");
  t.write("in/B.txt", "upper case sorts first");
  DocumentSource d((t.path() / "in").string());
  CHECK(d.format() == DocumentFormat::directory);
  CHECK(d.paths() == std::vector<std::string>{"B.txt", "a.txt", "b.txt", "sub/c.txt"});
  CHECK(read_all(d) == Docs{{simdex::key_id("B.txt"), "upper case sorts first"},
                            {simdex::key_id("a.txt"), "alpha text"},
                            {simdex::key_id("b.txt"), "beta text"},
                            {simdex::key_id("sub/c.txt"), "gamma"}});
  const auto listing = (t.path() / "docs.keys.tsv").string();
  d.write_paths(listing);
  const simdex::KeyMap map = simdex::KeyMap::read(listing);
  CHECK(map.size() == 4);
  for (const std::string& path : d.paths()) CHECK(map.find(simdex::key_id(path)) == std::string_view(path));
  CHECK(slurp(listing).starts_with("#simdex-keys 1\n"));
}

TEST_CASE("a directory's UTF-16 files are read as their text; UTF-16 lines are refused") {
  simdex::test::TempDir t;
  // "café 𝄞" in UTF-16: é one unit, U+1D11E a surrogate pair.
  const std::vector<char16_t> units = {u'c', u'a', u'f', 0x00E9, u' ', 0xD834, 0xDD1E};
  std::string le = "\xFF\xFE", be = "\xFE\xFF";
  for (const char16_t u : units) {
    le += static_cast<char>(u & 0xFF), le += static_cast<char>(u >> 8);
    be += static_cast<char>(u >> 8), be += static_cast<char>(u & 0xFF);
  }
  t.write("d/le.txt", le);
  t.write("d/be.txt", be);
  // An unpaired high surrogate, then an odd last byte: U+FFFD each.
  t.write("d/bad.txt", std::string("\xFF\xFE"
                                   "a\0"
                                   "\x00\xD8"
                                   "b\0"
                                   "z",
                                   9));
  t.write("d/utf8.txt",
          "\xEF\xBB\xBF"
          "caf\xC3\xA9");  // UTF-8 (a UTF-8 mark too): its bytes
  DocumentSource source((t.path() / "d").string());
  std::map<std::string, std::string> text;
  Document d;
  while (source.next(d)) text[std::string(d.key)] = std::string(d.text);
  CHECK(text["le.txt"] == "caf\xC3\xA9 \xF0\x9D\x84\x9E");
  CHECK(text["be.txt"] == "caf\xC3\xA9 \xF0\x9D\x84\x9E");
  CHECK(text["bad.txt"] ==
        "a\xEF\xBF\xBD"
        "b\xEF\xBF\xBD");
  CHECK(text["utf8.txt"] ==
        "\xEF\xBB\xBF"
        "caf\xC3\xA9");
  const auto lines = t.write("u16.jsonl", le + "\n");
  CHECK(error_of(lines).find("u16.jsonl:1: UTF-16 text") != std::string::npos);
  CHECK(error_of(lines, {.format = DocumentFormat::lines}).find("input") == 0);
}

TEST_CASE("a directory's file longer than the longest document is an error naming it, not all of memory") {
  simdex::test::TempDir t;
  t.write("d/a.txt", std::string(1000, 'a'));
  t.write("d/b.txt", std::string(1001, 'b'));
  const std::string dir = (t.path() / "d").string();
  CHECK(error_of(dir, {.max_line_bytes = 1001}) == "ok");
  const std::string error = error_of(dir, {.max_line_bytes = 1000});
  CHECK(error.find("input") == 0);
  CHECK(error.find("b.txt: a document longer than 1000 bytes") != std::string::npos);
  // The bound applies to the text a file holds: a compressed file's bytes after decompression, a
  // UTF-16 file's before decoding (its size on disk).
  std::string le = "\xFF\xFE";
  for (int i = 0; i < 600; ++i) le += "x", le += '\0';
  t.write("e/u16.txt", le);
  CHECK(error_of((t.path() / "e").string(), {.max_line_bytes = 1000}).find("u16.txt: a document longer") !=
        std::string::npos);
}

TEST_CASE("errors carry their kind") {
  simdex::test::TempDir t;
  const auto bad = t.write("bad.jsonl", "{\"id\": 1, \"text\": \"a\"}\n\n{\"id\": 2}\n");
  CHECK(error_of(bad).find("input") == 0);
  CHECK(error_of(bad).find("bad.jsonl:3: no field \"text\"") != std::string::npos);
  CHECK(error_of((t.path() / "missing").string()).find("io") == 0);
  t.write("d/x.txt", "x");
  CHECK(error_of((t.path() / "d").string(), {.format = DocumentFormat::jsonl}).find("usage") == 0);
  CHECK(error_of(bad, {.format = DocumentFormat::directory}).find("usage") == 0);
  CHECK(error_of((t.path() / "d").string()) == "ok");
}

TEST_CASE("formats by name: the CLI's --input-format and Python's input_format") {
  CHECK(simdex::document_format("auto") == DocumentFormat::automatic);
  CHECK(simdex::document_format("jsonl") == DocumentFormat::jsonl);
  CHECK(simdex::document_format("lines") == DocumentFormat::lines);
  CHECK(simdex::document_format("dir") == DocumentFormat::directory);
  for (const char* bad : {"", "JSONL", "directory", "xml"}) {
    try {
      simdex::document_format(bad);
      FAIL("accepted " << bad);
    } catch (const simdex::Error& e) {
      CHECK(e.code() == simdex::errc::usage);
      CHECK(std::string(e.what()).find("auto, jsonl, lines or dir") != std::string::npos);
    }
  }
}

TEST_CASE("a stopwords file: one a line, CR LF and blank lines allowed") {
  simdex::test::TempDir t;
  CHECK(simdex::read_stopwords_file(t.write("stop.txt", "the\r\n\nand\nof")) ==
        std::vector<std::string>{"the", "and", "of"});
  CHECK_THROWS_WITH_AS(simdex::read_stopwords_file((t.path() / "none.txt").string()),
                       doctest::Contains("io: stopwords file: cannot open"), simdex::Error);
}

TEST_CASE("position(): bytes of a file read so far of its size; files of a directory") {
  simdex::test::TempDir t;
  const std::string content = "{\"id\": 1, \"text\": \"one\"}\n{\"id\": 2, \"text\": \"two\"}\n";
  DocumentSource file(t.write("docs.jsonl", content));
  CHECK(file.position().in_bytes);
  CHECK(file.position().total == content.size());
  read_all(file);
  CHECK(file.position().done == content.size());

  t.write("in/a.txt", "alpha");
  t.write("in/b.txt", "beta");
  DocumentSource dir((t.path() / "in").string());
  CHECK(!dir.position().in_bytes);
  CHECK(dir.position().done == 0);
  CHECK(dir.position().total == 2);
  Document d;
  REQUIRE(dir.next(d));
  CHECK(dir.position().done == 1);
  read_all(dir);
  CHECK(dir.position().done == 2);
}
