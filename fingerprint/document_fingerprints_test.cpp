// DocumentFingerprints against DocumentSource read one document at a time with one Fingerprinter:
// the same documents, ids, lines, keys and fingerprints, and the same error after the same
// documents, at every thread count and block size (blocks of a byte cut every line; blocks smaller
// than a line grow).
#include "fingerprint/document_fingerprints.h"

#include <doctest/doctest.h>
#include <unistd.h>
#include <zlib.h>

#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "fingerprint/documents.h"
#include "fingerprint/random_json_line.h"
#include "simdex/documents.h"
#include "simdex/error.h"
#include "simdex/fingerprint.h"
#include "tests/test_util.h"

namespace fs = std::filesystem;
using simdex::Document;
using simdex::DocumentFingerprints;
using simdex::DocumentFormat;
using simdex::DocumentOptions;
using simdex::DocumentSource;
using simdex::FingerprintedDocument;

namespace {

struct Doc {
  std::uint64_t id = 0, line = 0, fingerprint = 0;
  simdex::IdKind id_kind = simdex::IdKind::integer;
  std::string key;
  std::size_t text_bytes = 0;
  bool operator==(const Doc&) const = default;
};

struct Reading {
  std::vector<Doc> docs;
  std::string error;  // "" when none
};

// The reference: one document at a time.
Reading read_serially(const std::string& input, const DocumentOptions& options) {
  Reading r;
  try {
    DocumentSource source(input, options);
    simdex::Fingerprinter f;
    Document d;
    while (source.next(d))
      r.docs.push_back({d.id, d.line, f.fingerprint(d.text), d.id_kind, std::string(d.key), d.text.size()});
  } catch (const simdex::Error& e) {
    r.error = e.what();
  }
  return r;
}

Reading read_in_blocks(const std::string& input, const DocumentOptions& options, unsigned threads,
                       std::size_t block_bytes) {
  Reading r;
  try {
    DocumentFingerprints documents(input, options, {}, threads, block_bytes);
    documents.run([&](const FingerprintedDocument& d) {
      r.docs.push_back({d.id, d.line, d.fingerprint, d.id_kind, std::string(d.key), d.text_bytes});
    });
  } catch (const simdex::Error& e) {
    r.error = e.what();
  }
  return r;
}

// Every thread count and block size reads `input` as the reference does; returns the reference.
Reading check_same(const std::string& input, const DocumentOptions& options = {}) {
  const Reading want = read_serially(input, options);
  for (unsigned threads : {1u, 2u, 3u, 8u})
    for (std::size_t block : {std::size_t{1}, std::size_t{7}, std::size_t{100}, std::size_t{4096},
                              DocumentFingerprints::default_block_bytes(threads)}) {
      CAPTURE(threads);
      CAPTURE(block);
      const Reading got = read_in_blocks(input, options, threads, block);
      CHECK(got.error == want.error);
      REQUIRE(got.docs.size() == want.docs.size());
      for (std::size_t i = 0; i < want.docs.size(); ++i) {
        CAPTURE(i);
        REQUIRE(got.docs[i] == want.docs[i]);
      }
    }
  return want;
}

// Words of several scripts, escaped and raw, with the odd stray byte.
std::string random_text(std::mt19937_64& rng, std::size_t words) {
  static const char* const pieces[] = {
      "the",    "Quick", "brown", "fox",   "jumps", "日本語",   "über",    "ÉCOLE",
      "Москва", "สวัสดี",  "مرحبا", "नमस्ते",  "\\n",   "\\\"",     "\\u00e9", "\\ud83d\\ude00",
      "\xff",   "\xc3",  "\\\\",  "a\\tb", "Ǆ",     "e\xcc\x81"};
  std::string s;
  for (std::size_t i = 0; i < words; ++i) {
    if (i) s += rng() % 8 ? " " : ", ";
    s += pieces[rng() % std::size(pieces)];
  }
  return s;
}

// Whether a reader takes `line` as a document (or a blank line) rather than throwing.
bool readers_take(const std::string& line) {
  std::istringstream in(line);
  simdex::text::DocumentReader reader(in, "t", DocumentFormat::jsonl);
  try {
    Document d;
    reader.next(d);
    return true;
  } catch (const simdex::Error&) {
    return false;
  }
}

// A line of JSON Lines that readers take: ids of every kind, blank lines, CR LF, long texts, and
// the odd lines of random_json_line that are valid.
std::string random_document_line(std::mt19937_64& rng, std::uint64_t n) {
  switch (rng() % 16) {
    case 0:
      return "";
    case 1:
      return " \t";
    case 2:
      return R"({"id":)" + std::to_string(rng()) + R"(,"text":")" + random_text(rng, 500 + rng() % 1000) +
             "\"}";
    case 3:
      return R"({"text":")" + random_text(rng, rng() % 20) + R"(","id":null})";
    case 4:
      return R"({"id":"key )" + std::to_string(n) + R"(\u00e9","text":")" + random_text(rng, rng() % 30) +
             "\"}";
    case 5:
      return R"({"text":")" + random_text(rng, rng() % 30) + "\"}\r";
    case 6:
      for (;;)
        if (std::string line = simdex::test::random_json_line(rng); readers_take(line)) return line;
    default:
      return R"({"id":)" + std::to_string(n) + R"(,"text":")" + random_text(rng, rng() % 40) + "\"}";
  }
}

// A line no reader takes.
std::string random_bad_line(std::mt19937_64& rng) {
  for (;;)
    if (std::string line = simdex::test::random_json_line(rng); !readers_take(line)) return line;
}

std::string random_jsonl(std::mt19937_64& rng, std::size_t lines) {
  std::string s;
  for (std::size_t i = 0; i < lines; ++i) s += random_document_line(rng, i) + "\n";
  return s;
}

}  // namespace

TEST_CASE("JSON Lines of every kind of line: the documents one at a time gives, at any threads and blocks") {
  simdex::test::TempDir dir;
  std::mt19937_64 rng(7);
  const std::string text = random_jsonl(rng, 600);
  const Reading all = check_same(dir.write("a.jsonl", text));
  CHECK(all.error.empty());
  CHECK(all.docs.size() > 400);
  // The last line without its '\n'; a file of nothing; of blank lines only.
  check_same(dir.write("b.jsonl", text.substr(0, text.size() - 1)));
  CHECK(check_same(dir.write("empty.jsonl", "")).docs.empty());
  CHECK(check_same(dir.write("blank.jsonl", "\n \n\t\n\n")).docs.empty());
}

TEST_CASE("a malformed line: the documents before it, then its error naming its line, at any threads") {
  simdex::test::TempDir dir;
  std::mt19937_64 rng(11);
  for (int round = 0; round < 12; ++round) {
    std::string text = random_jsonl(rng, 150);
    // Anywhere: the first line (whose errors carry hints), the middle, the last line.
    std::size_t at = text.size();
    if (round == 0) at = 0;
    if (const std::size_t nl = text.find('\n', rng() % text.size()); round > 1 && nl != std::string::npos)
      at = nl + 1;
    const std::string bad = random_bad_line(rng);
    CAPTURE(bad);
    text.insert(at, bad + "\n");
    const Reading want = check_same(dir.write("bad.jsonl", text));
    CHECK(want.error.find("bad.jsonl:") != std::string::npos);
    // And a second bad line later: the first one is reported.
    check_same(dir.write("bad2.jsonl", text + random_bad_line(rng) + "\n"));
  }
  // The hints of line 1: not JSON Lines at all; a simdex index.
  CHECK(check_same(dir.write("plain.jsonl", "hello world\n")).error.find("--input-format lines") !=
        std::string::npos);
}

TEST_CASE("lines too long: in a block, or a line longer than any block may grow to") {
  simdex::test::TempDir dir;
  DocumentOptions options;
  options.max_line_bytes = 300;
  const std::string ok = R"({"text":"short"})";
  const std::string long_line = R"({"text":")" + std::string(400, 'x') + "\"}";
  for (const std::string& text :
       {ok + "\n" + long_line + "\n" + ok + "\n", long_line + "\n", ok + "\n" + ok + "\n" + long_line,
        ok + "\n" + std::string(300, 'y') + "\n" + ok + "\n", std::string(301, 'y') + "\n"}) {
    const Reading want = check_same(dir.write("long.jsonl", text), options);
    CAPTURE(text.substr(0, 40));
    CHECK(!want.error.empty());
  }
  // Exactly the longest: a document (as plain text), however small the blocks; 224 bytes fill a
  // block of 7 doubled 5 times without its '\n'.
  options.format = DocumentFormat::lines;
  for (std::size_t longest : {300, 224}) {
    options.max_line_bytes = longest;
    const std::string line(longest, 'z');
    const Reading edge = check_same(dir.write("edge.txt", line + "\n" + line + "\n" + line), options);
    CHECK(edge.error.empty());
    CHECK(edge.docs.size() == 3);
  }
}

TEST_CASE("plain lines: every line a document, CR LF dropped; UTF-16 refused on line 1") {
  simdex::test::TempDir dir;
  DocumentOptions options;
  options.format = DocumentFormat::lines;
  std::mt19937_64 rng(3);
  std::string text;
  for (int i = 0; i < 500; ++i)
    text += (i % 7 == 0 ? "" : random_text(rng, rng() % 50)) + (i % 5 ? "\n" : "\r\n");
  CHECK(check_same(dir.write("a.txt", text), options).docs.size() == 500);
  const Reading utf16 = check_same(dir.write("u.txt", "\xFF\xFEh\0i\0\n\0"), options);
  CHECK(utf16.error.find("UTF-16") != std::string::npos);
  options.format = DocumentFormat::jsonl;
  check_same(dir.write("u.jsonl", "\xFE\xFF\0{\n"), options);
}

TEST_CASE(
    "a gzip input: the same documents; a truncated one an error after documents the serial reader gives") {
  simdex::test::TempDir dir;
  std::mt19937_64 rng(5);
  const std::string text = random_jsonl(rng, 400);
  const std::string path = (dir.path() / "a.jsonl.gz").string();
  gzFile gz = gzopen(path.c_str(), "wb");
  REQUIRE(gz != nullptr);
  REQUIRE(gzwrite(gz, text.data(), static_cast<unsigned>(text.size())) == static_cast<int>(text.size()));
  REQUIRE(gzclose(gz) == Z_OK);
  check_same(path);
  // Cut: the serial reader's error; the documents before it a prefix of the serial reader's.
  const std::uintmax_t size = fs::file_size(path);
  fs::resize_file(path, size / 2);
  const Reading want = read_serially(path, {});
  REQUIRE(!want.error.empty());
  for (unsigned threads : {1u, 2u, 4u}) {
    const Reading got = read_in_blocks(path, {}, threads, 1000);
    CHECK(got.error == want.error);
    REQUIRE(got.docs.size() <= want.docs.size());
    for (std::size_t i = 0; i < got.docs.size(); ++i) REQUIRE(got.docs[i] == want.docs[i]);
  }
}

TEST_CASE("a directory: its files in order, keyed by their paths") {
  simdex::test::TempDir dir;
  dir.write("d/b.txt", "second");
  dir.write("d/a/x.txt", "first one");
  dir.write("d/c.txt", "");
  const Reading r = check_same((dir.path() / "d").string());
  REQUIRE(r.docs.size() == 3);
  CHECK(r.docs[0].key == "a/x.txt");
}

TEST_CASE("progress: bytes read, up to the file's size, never backwards; run once") {
  simdex::test::TempDir dir;
  std::mt19937_64 rng(9);
  const std::string path = dir.write("p.jsonl", random_jsonl(rng, 300));
  DocumentFingerprints documents(path, {}, {}, 2, 512);
  std::vector<std::uint64_t> done;
  std::size_t count = 0;
  documents.run([&](const FingerprintedDocument&) { ++count; },
                [&](const DocumentSource::Position& at) {
                  CHECK(at.in_bytes);
                  CHECK(at.total == fs::file_size(path));
                  if (!done.empty()) CHECK(at.done >= done.back());
                  done.push_back(at.done);
                });
  CHECK(count > 0);
  REQUIRE(done.size() > 10);
  CHECK(done.back() == fs::file_size(path));
  CHECK_THROWS_AS(documents.run([](const FingerprintedDocument&) {}), simdex::Error);
}

TEST_CASE("options out of range are an error before anything is read") {
  simdex::FingerprintOptions bad;
  bad.shingle_size = 0;
  CHECK_THROWS_AS(DocumentFingerprints("/nonexistent/file", {}, bad, 2, 1 << 20), simdex::Error);
  CHECK_THROWS_AS(DocumentFingerprints("/nonexistent/file", {}, {}, 2, 1 << 20), simdex::Error);
}
