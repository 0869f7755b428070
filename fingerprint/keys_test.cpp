// Keys, their ids and the key map (spec/KEYS.md).
#include "simdex/keys.h"

#include <doctest/doctest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <thread>

#include "fingerprint/documents.h"
#include "fingerprint/key_map_file.h"
#include "fingerprint/pending_key_map.h"
#include "simdex/documents.h"
#include "simdex/error.h"

using namespace simdex;

namespace {

std::string error_of(auto&& fn) {
  try {
    fn();
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

struct TempFile {
  std::string path = (std::filesystem::temp_directory_path() /
                      ("simdex-keys-test-" + std::to_string(::getpid()) + ".keys.tsv"))
                         .string();
  ~TempFile() { std::filesystem::remove(path); }
};

// A tiny hash for tests: collisions on demand.
std::uint64_t first_byte_hash(std::string_view key) {
  return key.empty() ? 0 : static_cast<unsigned char>(key[0]);
}

// `bytes` with one to three random edits: a byte changed, a few erased, or the rest cut off.
std::string mutated_map(std::string mutated, std::mt19937_64& rng) {
  for (int edits = 1 + static_cast<int>(rng() % 3); edits > 0; --edits) {
    const std::size_t at = rng() % mutated.size();
    switch (rng() % 3) {
      case 0:
        mutated[at] = static_cast<char>(rng() % 256);
        break;
      case 1:
        mutated.erase(at, 1 + rng() % 4);
        break;
      default:
        mutated.resize(at);
        break;
    }
    if (mutated.empty()) mutated = "#";
  }
  return mutated;
}

// A key map of 60,000 random keys of up to 90 bytes (escapes among them) and one of 1.5 MiB, ~3.5
// MiB in all, written to `path`: its bytes.
std::string random_key_map(const std::string& path, std::mt19937_64& rng) {
  KeyMapBuilder b;
  for (int i = 0; i < 60000; ++i) {
    std::string key(i == 30000 ? std::size_t{3} << 19 : rng() % 90, '\0');
    for (char& c : key) c = static_cast<char>(rng() % 256);
    b.add(key_id(key), IdKind::key, key, static_cast<std::uint64_t>(i + 1));
  }
  b.write(path);
  const std::string bytes = read_file(path);
  REQUIRE(bytes.size() > (std::size_t{5} << 19));
  return bytes;
}

}  // namespace

TEST_CASE("key_id is XXH3-64 with seed 0 of the key's bytes (spec/KEYS.md vectors)") {
  // The vectors of spec/KEYS.md (computed there with spec/reference/xxh3.py).
  CHECK(key_id("") == 0x2d06800538d394c2ULL);
  CHECK(key_id("a") == 0xe6c632b61e964e1fULL);
  CHECK(key_id("https://example.org/") == 0x8e2c3c2914c7cb49ULL);
}

TEST_CASE("escaping: backslash, TAB, LF, CR short; other control bytes \\xHH; the rest as it is") {
  CHECK(escape_key("plain/path.txt") == "plain/path.txt");
  CHECK(escape_key("a\\b\tc\nd\re") == "a\\\\b\\tc\\nd\\re");
  CHECK(escape_key(std::string("\x00\x1f\x7f", 3)) == "\\x00\\x1f\\x7f");
  CHECK(escape_key("caf\xc3\xa9 \xff") == "caf\xc3\xa9 \xff");  // bytes >= 0x80 unchanged
  CHECK(escape_key("a,b") == "a,b");
  CHECK(escape_key("a,b", true) == "a\\x2cb");
  // Round trip over random bytes.
  std::mt19937_64 rng(7);
  for (int i = 0; i < 2000; ++i) {
    std::string key(rng() % 12, '\0');
    for (char& c : key) c = static_cast<char>(rng() % 4 == 0 ? rng() % 32 : rng() % 256);
    const auto back = unescape_key(escape_key(key));
    REQUIRE(back);
    CHECK(*back == key);
  }
}

TEST_CASE("unescape_key rejects every non-canonical spelling") {
  CHECK(!unescape_key("a\tb"));   // raw control byte
  CHECK(!unescape_key("a\x7f"));  // raw DEL
  CHECK(!unescape_key("a\\"));    // dangling backslash
  CHECK(!unescape_key("\\q"));    // unknown escape
  CHECK(!unescape_key("\\x4"));   // short hex
  CHECK(!unescape_key("\\x1F"));  // uppercase hex
  CHECK(!unescape_key("\\x41"));  // 'A' needs no escape
  CHECK(!unescape_key("\\x09"));  // TAB has its short form
  CHECK(!unescape_key("\\x5c"));  // so has the backslash
  CHECK(!unescape_key("\\x2c"));  // ',' is escaped in command output only
  CHECK(unescape_key("\\x1f") == std::string("\x1f"));
}

TEST_CASE("the key map: header, ids ascending, keys escaped; read back") {
  TempFile f;
  KeyMapBuilder b;
  b.add(key_id("b\tkey"), IdKind::key, "b\tkey", 2);
  b.add(key_id("a"), IdKind::key, "a", 1);
  b.add(key_id("a"), IdKind::key, "a", 3);  // the same key again: one line
  b.add(5, IdKind::integer, "", 4);
  b.add(6, IdKind::line, "", 6);
  b.write(f.path);
  const std::string bytes = read_file(f.path);
  std::ostringstream expected;
  const auto ka = key_id("a"), kb = key_id("b\tkey");
  expected << "#simdex-keys 1\n";
  if (ka < kb)
    expected << ka << "\ta\n" << kb << "\tb\\tkey\n";
  else
    expected << kb << "\tb\\tkey\n" << ka << "\ta\n";
  CHECK(bytes == expected.str());
  const KeyMap map = KeyMap::read(f.path);
  CHECK(map.size() == 2);
  CHECK(map.find(kb) == std::string_view("b\tkey"));
  CHECK(map.find(5) == std::nullopt);
  CHECK(map.key_or_id(5) == "5");
  CHECK(map.key_or_id(kb) == "b\\tkey");
}

TEST_CASE("a map read from a file: keys as written and unescaped ones, valid in copies; no FIFO") {
  // KeyMap::read keeps the file's bytes and points into them; keys with escapes are kept apart.
  TempFile f;
  KeyMapBuilder b;
  std::vector<std::string> keys = {
      "plain",       "",    "tab\there", "back\\slash", std::string("nul\0byte", 8), "\xc3\xa9t\xc3\xa9",
      "line\nbreak", "last"};
  for (std::size_t i = 0; i < keys.size(); ++i) b.add(key_id(keys[i]), IdKind::key, keys[i], i + 1);
  b.write(f.path);
  std::optional<KeyMap> copy;
  {
    const KeyMap map = KeyMap::read(f.path);
    REQUIRE(map.size() == keys.size());
    for (std::size_t i = 1; i < map.size(); ++i) CHECK(map.id_at(i - 1) < map.id_at(i));
    copy = map;
  }  // the copy shares the bytes
  for (const std::string& key : keys) CHECK(copy->find(key_id(key)) == std::string_view(key));

  const std::string fifo = f.path + ".fifo";
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  // A FIFO would block, a device never end: refused, as other readers refuse them.
  CHECK(error_of([&] { KeyMap::read(fifo); }).find("is not a regular file") != std::string::npos);
  CHECK(error_of([&] { PendingKeyMap::copy_of(fifo, f.path + ".copy"); }).find("is not a regular file") !=
        std::string::npos);
  CHECK(error_of([&] { KeyMap::read("/dev/zero"); }).find("is not a regular file") != std::string::npos);
  std::filesystem::remove(fifo);
  CHECK(error_of([&] { KeyMap::read(f.path + ".none"); }).find("cannot open key map") != std::string::npos);
}

TEST_CASE("collisions are errors naming both sides") {
  SUBCASE("two keys, one id (an injected hash collision)") {
    KeyMapBuilder b;
    b.add(99, IdKind::key, "https://a.example/", 1);
    b.add(99, IdKind::key, "https://b.example/", 7);
    const std::string e = error_of([&] { b.check(); });
    CHECK(e.find("\"https://a.example/\" (line 1)") != std::string::npos);
    CHECK(e.find("\"https://b.example/\" (line 7)") != std::string::npos);
    CHECK(e.find("collision") != std::string::npos);
  }
  SUBCASE("a key and an integer id") {
    KeyMapBuilder b;
    b.add(17, IdKind::integer, "", 3);
    b.add(17, IdKind::key, "k", 9);
    const std::string e = error_of([&] { b.check(); });
    CHECK(e.find("key \"k\" (line 9) has id 17, the integer id of line 3") != std::string::npos);
  }
  SUBCASE("an integer id and a line number") {
    KeyMapBuilder b;
    b.add(4, IdKind::integer, "", 1);
    b.add(4, IdKind::line, "", 5);
    CHECK(error_of([&] {
            b.check();
          }).find("id 4 is the integer id of line 1 and the id of line 5 (a record without one") !=
          std::string::npos);
  }
  SUBCASE("repeated integer ids and repeated keys are no collision") {
    KeyMapBuilder b;
    b.add(4, IdKind::integer, "", 1);
    b.add(4, IdKind::integer, "", 2);
    b.add(8, IdKind::key, "x", 3);
    b.add(8, IdKind::key, "x", 4);
    CHECK(error_of([&] { b.check(); }).empty());
  }
}

TEST_CASE("integer ids and line numbers are held as runs; a collision inside a run names its line") {
  SUBCASE("an integer id and a line number") {
    KeyMapBuilder b;
    for (std::uint64_t i = 0; i < 1000; ++i) b.add(1000 + i, IdKind::integer, "", 1 + i);  // one run
    b.add(1500, IdKind::line, "", 1501);
    CHECK(error_of([&] {
            b.check();
          }).find("id 1500 is the integer id of line 501 and the id of line 1501 (a record without one") !=
          std::string::npos);
  }
  SUBCASE("a key and a line number") {
    KeyMapBuilder b;
    for (std::uint64_t line = 1; line <= 1000; ++line) b.add(line - 1, IdKind::line, "", line);
    b.add(5000, IdKind::integer, "", 1001);
    b.add(700, IdKind::key, "k", 1002);
    CHECK(error_of([&] {
            b.check();
          }).find("key \"k\" (line 1002) has id 700, the id of line 701 (a record without one") !=
          std::string::npos);
  }
  SUBCASE("runs that do not meet: no collision") {
    KeyMapBuilder b;
    for (std::uint64_t i = 0; i < 100; ++i) b.add(i * 2, IdKind::integer, "", i + 1);  // runs of one
    for (std::uint64_t line = 300; line < 400; ++line) b.add(line - 1, IdKind::line, "", line);
    b.add(1, IdKind::key, "odd", 500);
    CHECK(error_of([&] { b.check(); }).empty());
    b.add(150, IdKind::line, "", 151);  // 150 = 75 * 2 is the integer id of line 76
    CHECK(error_of([&] {
            b.check();
          }).find("id 150 is the integer id of line 76 and the id of line 151 (a record without one") !=
          std::string::npos);
  }
}

TEST_CASE("a collision through DocumentSource's hash hook, as the CLI meets it") {
  std::istringstream in(
      "{\"url\": \"apple\", \"text\": \"one\"}\n"
      "{\"url\": \"avocado\", \"text\": \"two\"}\n");
  text::DocumentReader r(in, "c.jsonl", DocumentFormat::jsonl, "url", "text", 1 << 20, first_byte_hash);
  KeyMapBuilder b;
  Document d;
  while (r.next(d)) b.add(d);
  const std::string e = error_of([&] { b.check(); });
  CHECK(e.find("\"apple\" (line 1) and \"avocado\" (line 2) have the same id 97") != std::string::npos);
}

TEST_CASE("ids from any field: integers stay, strings are hashed, absent or null: 0-based line number") {
  std::istringstream in(
      "{\"url\": 42, \"text\": \"a\"}\n"
      "\n"
      "{\"url\": \"https://x/\", \"text\": \"b\"}\n"
      "{\"text\": \"c\"}\n"
      "{\"url\": null, \"text\": \"d\"}\n");
  text::DocumentReader r(in, "ids.jsonl", DocumentFormat::jsonl, "url", "text");
  Document d;
  REQUIRE(r.next(d));
  CHECK((d.id == 42 && d.id_kind == IdKind::integer && d.key.empty()));
  REQUIRE(r.next(d));
  CHECK((d.id == key_id("https://x/") && d.id_kind == IdKind::key && d.key == "https://x/" && d.line == 3));
  REQUIRE(r.next(d));
  CHECK((d.id == 3 && d.id_kind == IdKind::line));  // physical line 4, blank lines counted
  REQUIRE(r.next(d));
  CHECK((d.id == 4 && d.id_kind == IdKind::line));
  CHECK(!r.next(d));
  std::istringstream bad("{\"url\": -3, \"text\": \"a\"}\n");
  text::DocumentReader rb(bad, "bad.jsonl", DocumentFormat::jsonl, "url", "text");
  CHECK(error_of([&] {
          rb.next(d);
        }).find("bad.jsonl:1: field \"url\" must be a string (a key) or an integer") != std::string::npos);
}

TEST_CASE("a reader rejects what the spec says it must reject") {
  auto bad = [](std::string_view bytes) { return error_of([&] { KeyMap::parse(bytes, "m.tsv"); }); };
  const std::string h = "#simdex-keys 1\n";
  CHECK(bad("#simdex-keys 2\n").find("m.tsv:1: not a simdex key map") != std::string::npos);
  CHECK(bad(h + "1\ta\n2\tb").find("m.tsv:3: the last line has no newline") != std::string::npos);
  CHECK(bad(h + "1 a\n").find("m.tsv:2: no TAB") != std::string::npos);
  CHECK(bad(h + "01\ta\n").find("decimal integer") != std::string::npos);
  CHECK(bad(h + "18446744073709551616\ta\n").find("decimal integer") != std::string::npos);
  CHECK(bad(h + "-1\ta\n").find("decimal integer") != std::string::npos);
  CHECK(bad(h + "\ta\n").find("decimal integer") != std::string::npos);
  CHECK(bad(h + "2\ta\n1\tb\n").find("m.tsv:3: ids must be strictly ascending") != std::string::npos);
  CHECK(bad(h + "2\ta\n2\ta\n").find("strictly ascending") != std::string::npos);
  CHECK(bad(h + "2\ta\rb\n").find("not escaped") != std::string::npos);
  CHECK(bad(h + "2\ta\\b\n").find("not escaped") != std::string::npos);
  CHECK(bad(h + "2\ta\tb\n").find("not escaped") != std::string::npos);  // a second TAB is a raw one
  CHECK(bad(h).empty());
  CHECK(bad(h + "0\t\n18446744073709551615\tlast\n").empty());
  // An empty file is a map truncated to nothing, not a listing of no keys (it turned every key of
  // `query --serve --keys` into its id when the map was cut to 0 bytes under it).
  CHECK(bad("").find("m.tsv: an empty file is not a key map") != std::string::npos);
}

TEST_CASE("the paths.tsv of simdex 0.1 is still read: no header, no escaping") {
  const KeyMap legacy = KeyMap::parse("0\ta.txt\n1\tsub/b\\c.txt\n", "docs.fp.paths.tsv");
  CHECK(legacy.find(1) == std::string_view("sub/b\\c.txt"));
  CHECK(legacy.key_or_id(1) == "sub/b\\\\c.txt");
}

TEST_CASE("random keys round-trip through a written map; mutated maps are read or refused, never more") {
  TempFile f;
  std::mt19937_64 rng(3);
  KeyMapBuilder b;
  std::vector<std::string> keys;
  for (int i = 0; i < 300; ++i) {
    std::string key(rng() % 20, '\0');
    for (char& c : key) c = static_cast<char>(rng() % 256);
    keys.push_back(key);
    b.add(key_id(key), IdKind::key, key, static_cast<std::uint64_t>(i + 1));
  }
  b.write(f.path);
  const std::string bytes = read_file(f.path);
  const KeyMap map = KeyMap::parse(bytes, "m");
  for (const std::string& key : keys) CHECK(map.find(key_id(key)) == std::string_view(key));
  int refused = 0;
  for (int round = 0; round < 3000; ++round) {
    const std::string mutated = mutated_map(bytes, rng);
    try {
      const KeyMap m = KeyMap::parse(mutated, "m");
      for (const std::string& key : keys) (void)m.find(key_id(key));  // a map read is a usable map
    } catch (const Error& e) {
      CHECK(e.code() == errc::input);
      ++refused;
    }
  }
  CHECK(refused > 1000);
}

TEST_CASE("a map read a chunk at a time, copied or entry by entry, holds what KeyMap reads, or fails so") {
  // copy_of (a map carried beside an output) and KeyMapCursor (what `add` and the unions of maps
  // read) read in chunks of 1 MiB, never a map whole (one of 100M keys is gigabytes): a map of ~3.5
  // MiB, lines and a 1.5 MiB key across the chunks' ends, and mutations of it, copied or read entry
  // by entry exactly as KeyMap::parse reads them, or refused with its message.
  TempFile from;
  const std::string to = from.path + ".copy";
  std::mt19937_64 rng(4);
  const std::string bytes = random_key_map(from.path, rng);
  int refused = 0;
  for (int round = 0; round < 40; ++round) {
    const std::string map = round == 0 ? bytes : mutated_map(bytes, rng);
    std::ofstream(from.path, std::ios::binary | std::ios::trunc) << map;
    std::vector<std::pair<std::uint64_t, std::string>> expected, read;
    const std::string expected_error = error_of([&] {
      const KeyMap whole = KeyMap::parse(map, from.path);
      for (std::size_t i = 0; i < whole.size(); ++i) expected.emplace_back(whole.id_at(i), whole.key_at(i));
    });
    CHECK(error_of([&] { PendingKeyMap::copy_of(from.path, to).commit(); }) == expected_error);
    CHECK(error_of([&] {
            for (KeyMapCursor c(from.path); c.valid(); c.next()) read.emplace_back(c.id(), c.key());
          }) == expected_error);
    if (expected_error.empty()) {
      CHECK(read_file(to) == map);
      CHECK(read == expected);
    }
    refused += !expected_error.empty();
  }
  CHECK(refused > 10);
  std::filesystem::remove(to);
  CHECK(error_of([&] { KeyMapCursor c(to); }).find("cannot open key map") != std::string::npos);
}

namespace {
// A key map of the entries (id, key), ids ascending, as a writer writes it.
std::string key_map_of(const std::vector<std::pair<std::uint64_t, std::string>>& entries) {
  std::string bytes(kKeyMapHeader);
  for (const auto& [id, key] : entries) append_key_map_line(bytes, id, key);
  return bytes;
}

// Every id of `whole` found in `mapped` with its key; ids next to them, and random ones, found in
// both or in neither.
void check_same_answers(const KeyMap& whole, const MappedKeyMap& mapped, std::mt19937_64& rng) {
  // Every entry, in order, read one at a time; the cursor outlives a copy of the map.
  std::optional<MappedKeyMap::Entries> entries;
  {
    const MappedKeyMap copy = mapped;  // NOLINT(performance-unnecessary-copy-initialization)
    entries.emplace(copy.entries());
  }
  std::uint64_t entry_id = 0;
  std::string_view entry_key;
  for (std::size_t i = 0; i < whole.size(); ++i) {
    REQUIRE(entries->next(entry_id, entry_key));
    REQUIRE(entry_id == whole.id_at(i));
    REQUIRE(entry_key == whole.key_at(i));
  }
  CHECK_FALSE(entries->next(entry_id, entry_key));
  CHECK_FALSE(entries->next(entry_id, entry_key));  // and stays at the end
  std::string scratch;
  const std::size_t step = std::max<std::size_t>(1, whole.size() / 4000);  // (every id of a small map)
  for (std::size_t i = 0; i < whole.size(); i += step) {
    const std::uint64_t id = whole.id_at(i);
    REQUIRE(mapped.find(id, scratch) == whole.key_at(i));
    for (const std::uint64_t near : {id - 1, id + 1}) REQUIRE(mapped.find(near, scratch) == whole.find(near));
  }
  for (const std::uint64_t id : {std::uint64_t{0}, std::uint64_t{1}, ~std::uint64_t{0}, rng(), rng()})
    CHECK(mapped.find(id, scratch) == whole.find(id));
  std::size_t longest = 0;
  for (std::size_t i = 1; i < whole.size(); ++i)
    if (whole.key_at(i).size() > whole.key_at(longest).size()) longest = i;
  if (whole.size() > 0) CHECK(mapped.find(whole.id_at(longest)) == whole.key_at(longest));
}
}  // namespace

TEST_CASE("a mapped key map finds what KeyMap reads, whatever the spread of its ids") {
  TempFile f;
  std::mt19937_64 rng(5);
  auto check_map = [&](const std::string& bytes) {
    std::ofstream(f.path, std::ios::binary | std::ios::trunc) << bytes;
    check_same_answers(KeyMap::parse(bytes, f.path), MappedKeyMap(f.path), rng);
  };
  SUBCASE("ids of keys (hashes), escapes, a 1.5 MiB key") {
    random_key_map(f.path, rng);
    check_map(read_file(f.path));
  }
  SUBCASE("ids bunched up, evenly spaced, growing geometrically, at the ends of the range") {
    auto random_key = [&] { return std::string(1 + rng() % 30, static_cast<char>('a' + rng() % 26)); };
    std::vector<std::pair<std::uint64_t, std::string>> dense, bunched, geometric, ends;
    for (std::uint64_t i = 0; i < 5000; ++i) dense.emplace_back(i, random_key());
    // 0..4998 and 2^64-1: interpolation creeps a line at a time; bisection takes over.
    ends = dense;
    ends.back().first = ~std::uint64_t{0};
    for (std::uint64_t base = rng() >> 8, c = 0; c < 50; ++c, base += rng() >> 8)
      for (std::uint64_t i = 0; i < 100; ++i) bunched.emplace_back(base + i * 3, random_key());
    for (std::uint64_t i = 0; i < 64; ++i)
      geometric.emplace_back((std::uint64_t{1} << i) + i % 2, random_key());
    for (const auto* entries : {&dense, &ends, &bunched, &geometric}) check_map(key_map_of(*entries));
  }
  SUBCASE("one entry; none; the paths.tsv of simdex 0.1") {
    check_map(key_map_of({{42, "only"}}));
    check_map(std::string(kKeyMapHeader));
    check_map("0\ta.txt\n1\tsub/b\\c.txt\n7\tc\n");
    CHECK(MappedKeyMap(f.path).find(1) == "sub/b\\c.txt");
    CHECK(MappedKeyMap(f.path).key_or_id(1) == "sub/b\\\\c.txt");
    CHECK(MappedKeyMap(f.path).key_or_id(2) == "2");
  }
}

TEST_CASE("a mapped key map checks the lines it reads: a malformed map is an error, never a crash") {
  TempFile f;
  auto write = [&](const std::string& bytes) {
    std::ofstream(f.path, std::ios::binary | std::ios::trunc) << bytes;
  };
  auto error_finding = [&](const std::string& bytes, std::uint64_t id) {
    write(bytes);
    return error_of([&] { (void)MappedKeyMap(f.path).find(id); });
  };
  const std::string h(kKeyMapHeader);
  CHECK(error_finding("#simdex-keys 2\n", 1).find("the line at byte 0: not a simdex key map") !=
        std::string::npos);
  CHECK(error_finding(h + "1\ta\n2\tb", 1).find("the last line has no newline") != std::string::npos);
  CHECK(error_finding("", 1).find("': an empty file is not a key map") != std::string::npos);
  CHECK(error_finding(h + "1 a\n", 1).find("byte 15: no TAB") != std::string::npos);
  CHECK(error_finding(h + "1\ta\n02\tb\n", 1).find("byte 19: the id must be a decimal") != std::string::npos);
  CHECK(error_finding(h + "5\ta\n3\tb\n", 4).find("strictly ascending") != std::string::npos);
  CHECK(error_finding(h + "5\ta\n5\tb\n", 5).find("strictly ascending") != std::string::npos);
  // Out of order in the middle: seen by a lookup that must read the line to tell whether its id is
  // there (a lookup that need not read it cannot tell; KeyMap::read can).
  CHECK(error_finding(h + "5\ta\n99\tb\n10\tc\n", 7)
            .find("key map '" + f.path + "': the line at byte 19: ids must be strictly ascending (id 99 ") !=
        std::string::npos);
  CHECK(error_finding(h + "1\ta\n2\tb\\q\n3\tc\n", 2).find("byte 19: the key is not escaped") !=
        std::string::npos);
  CHECK(error_of([&] { MappedKeyMap m(f.path + ".none"); }).find("cannot open key map") != std::string::npos);
  CHECK(error_of([] { MappedKeyMap m("/dev/zero"); }).find("is not a regular file") != std::string::npos);

  // Mutations of a map of 60,000 keys: a map KeyMap reads gives KeyMap's answers; one it refuses
  // gives answers or Error(input), and under the sanitizers no read outside the file.
  std::mt19937_64 rng(6);
  const std::string bytes = random_key_map(f.path, rng);
  const KeyMap original = KeyMap::parse(bytes, f.path);
  std::vector<std::uint64_t> ids;
  for (std::size_t i = 0; i < original.size(); i += 7) ids.push_back(original.id_at(i));
  int refused = 0, errors = 0, entry_errors = 0;
  for (int round = 0; round < 60; ++round) {
    const std::string map = mutated_map(bytes, rng);
    write(map);
    std::optional<KeyMap> whole;
    try {
      whole = KeyMap::parse(map, f.path);
    } catch (const Error&) {
      ++refused;
    }
    try {
      const MappedKeyMap mapped(f.path);
      std::string scratch;
      for (const std::uint64_t id : ids) {
        const auto key = mapped.find(id, scratch);
        if (whole) REQUIRE(key == whole->find(id));
      }
    } catch (const Error& e) {
      REQUIRE(!whole);  // a well-formed map never fails a lookup
      CHECK(e.code() == errc::input);
      ++errors;
    }
    // Read entry by entry, every line is checked: KeyMap's entries, or the error KeyMap gives.
    std::size_t read = 0;
    try {
      MappedKeyMap::Entries entries = MappedKeyMap(f.path).entries();
      std::uint64_t id = 0;
      std::string_view key;
      for (; entries.next(id, key); ++read) {
        REQUIRE((whole || read < original.size()));
        if (whole) REQUIRE((id == whole->id_at(read) && key == whole->key_at(read)));
      }
      REQUIRE(whole);
      CHECK(read == whole->size());
    } catch (const Error& e) {
      REQUIRE(!whole);
      CHECK(e.code() == errc::input);
      ++entry_errors;
    }
  }
  CHECK(refused > 20);
  CHECK(errors > 10);
  CHECK(entry_errors == refused);
}

TEST_CASE(
    "a mapped key map written in place under it is an error, not a crash; one replaced by rename is not") {
  TempFile f;
  std::mt19937_64 rng(8);
  const std::string bytes = random_key_map(f.path, rng);
  const KeyMap whole = KeyMap::parse(bytes, f.path);
  auto code_of = [](auto&& fn) -> std::optional<errc> {
    try {
      fn();
    } catch (const Error& e) {
      return e.code();
    }
    return std::nullopt;
  };
  SUBCASE("replaced by rename: the old map stays mapped, its answers unchanged") {
    const MappedKeyMap mapped(f.path);
    const std::string other = f.path + ".new";
    std::ofstream(other, std::ios::binary) << key_map_of({{1, "one"}});
    std::filesystem::rename(other, f.path);
    for (std::size_t i = 0; i < whole.size(); i += 97) CHECK(mapped.find(whole.id_at(i)) == whole.key_at(i));
    CHECK(MappedKeyMap(f.path).find(1) == "one");
  }
  SUBCASE("truncated in place: lookups throw file_changed (the lease, or the zeros read past the end)") {
    const MappedKeyMap mapped(f.path);
    REQUIRE(mapped.find(whole.id_at(whole.size() / 2)) == whole.key_at(whole.size() / 2));
    std::filesystem::resize_file(f.path, 100);
    int changed = 0;
    for (std::size_t i = 0; i < whole.size(); i += 97)
      changed += code_of([&] { (void)mapped.find(whole.id_at(i)); }) == errc::file_changed;
    CHECK(changed == static_cast<int>((whole.size() + 96) / 97));
    CHECK(code_of([&] { (void)mapped.ids(); }) == errc::file_changed);
    CHECK(code_of([&] {
            MappedKeyMap::Entries entries = mapped.entries();
            std::uint64_t id = 0;
            std::string_view key;
            while (entries.next(id, key)) {
            }
          }) == errc::file_changed);
  }
}
