// simdex::dedup against brute force: the clusters of the "within k" graph over the documents'
// fingerprints (all pairs compared), one kept per cluster by the policy, the rest written as read.
#include "simdex/dedup.h"

#include <doctest/doctest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <bit>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <numeric>
#include <random>
#include <sstream>
#include <thread>
#include <utility>

#include "io/input_stream.h"
#include "simdex/error.h"

using namespace simdex;
namespace fs = std::filesystem;

namespace {

struct TempDir {
  fs::path path = fs::temp_directory_path() / ("simdex-dedup-test-" + std::to_string(::getpid()));
  TempDir() {
    fs::remove_all(path);
    fs::create_directories(path);
  }
  ~TempDir() { fs::remove_all(path); }
  std::string file(const std::string& name) const { return (path / name).string(); }
};

std::string decoded(const std::string& path) {  // plain, gzip or zstd
  io::InputStream in(path);
  std::ostringstream s;
  s << in.stream().rdbuf();
  return s.str();
}

std::vector<std::string> words(std::mt19937_64& rng, std::size_t n) {
  static const char* pool[] = {"river", "stone", "light", "house", "green", "night", "water", "field",
                               "cloud", "sound", "quiet", "metal", "paper", "grain", "storm", "glass"};
  std::vector<std::string> w(n);
  for (auto& x : w) x = std::string(pool[rng() % 16]) + std::to_string(rng() % 50);
  return w;
}
std::string join(const std::vector<std::string>& w) {
  std::string s;
  for (const auto& x : w) s += (s.empty() ? "" : " ") + x;
  return s;
}

struct Doc {
  std::string line;  // the JSON line as written
  std::string text;
};

// Documents of ~60 words: originals, and variants of them with a few words changed, some
// exact copies, keys as strings, integers or missing (kept apart so that no line number meets an
// integer id).
std::vector<Doc> make_docs(std::uint64_t seed, std::size_t originals) {
  std::mt19937_64 rng(seed);
  std::vector<std::vector<std::string>> texts;
  for (std::size_t i = 0; i < originals; ++i) {
    texts.push_back(words(rng, 40 + rng() % 40));
    for (std::size_t v = rng() % 3; v > 0; --v) {
      auto copy = texts[texts.size() - 1 - (rng() % std::min<std::size_t>(texts.size(), 2))];
      for (std::size_t e = rng() % 3; e > 0; --e) copy[rng() % copy.size()] = words(rng, 1)[0];
      texts.push_back(copy);
    }
  }
  std::shuffle(texts.begin(), texts.end(), rng);
  std::vector<Doc> docs;
  for (std::size_t i = 0; i < texts.size(); ++i) {
    const std::string text = join(texts[i]);
    std::string line = "{\"text\": \"" + text + "\"";
    if (i % 7 == 3)
      line += ", \"url\": null";
    else if (i % 7 != 5)
      line += ", \"url\": \"https://example.org/" + std::to_string(i) + "\"";
    docs.push_back({line + ", \"n\": " + std::to_string(i) + "}", text});
  }
  return docs;
}

// The clusters by brute force: components over documents (pairs within k), ascending members.
std::vector<std::vector<std::size_t>> brute_force(const std::vector<std::uint64_t>& fp, unsigned k) {
  std::vector<std::size_t> parent(fp.size());
  std::iota(parent.begin(), parent.end(), 0);
  auto find = [&](std::size_t x) {
    while (parent[x] != x) x = parent[x] = parent[parent[x]];
    return x;
  };
  for (std::size_t a = 0; a < fp.size(); ++a)
    for (std::size_t b = a + 1; b < fp.size(); ++b)
      if (std::popcount(fp[a] ^ fp[b]) <= static_cast<int>(k)) parent[find(a)] = find(b);
  std::map<std::size_t, std::vector<std::size_t>> groups;
  for (std::size_t d = 0; d < fp.size(); ++d) groups[find(d)].push_back(d);
  std::vector<std::vector<std::size_t>> out;
  for (auto& [root, members] : groups)
    if (members.size() > 1) out.push_back(members);
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace

TEST_CASE("dedup equals brute force: clusters, the kept document per policy, the output") {
  TempDir t;
  const auto docs = make_docs(11, 300);
  {
    std::ofstream out(t.file("in.jsonl"), std::ios::binary);
    for (std::size_t i = 0; i < docs.size(); ++i) {
      out << docs[i].line << (i % 50 == 7 ? "\r\n" : "\n");  // some CR LF lines, kept as they are
      if (i % 90 == 2) out << "  \n";                        // blank lines: no documents
    }
  }
  Fingerprinter fingerprinter;
  std::vector<std::uint64_t> fp;
  for (const Doc& d : docs) fp.push_back(fingerprinter.fingerprint(d.text));
  for (const unsigned k : {0u, 3u, kDocumentK}) {
    const auto expected = brute_force(fp, k);
    REQUIRE(expected.size() > 10);  // the data has clusters to find
    for (const KeepPolicy keep : {KeepPolicy::first, KeepPolicy::longest, KeepPolicy::shortest}) {
      CAPTURE(k);
      CAPTURE(keep_policy_name(keep));
      DedupOptions o;
      o.documents.id_field = "url";
      o.k = k;
      o.keep = keep;
      o.temp_dir = t.path.string();
      const DedupResult r = dedup(t.file("in.jsonl"), t.file("out.jsonl.gz"), o);
      CHECK(r.documents == docs.size());
      std::vector<std::vector<std::size_t>> got;
      std::vector<bool> dropped(docs.size(), false);
      for (const DedupCluster& c : r.clusters) {
        std::vector<std::size_t> members;
        for (const DedupMember& m : c.members) members.push_back(m.document);
        got.push_back(members);
        // The kept one: the policy's best, the first of equals.
        std::size_t best = 0;
        for (std::size_t i = 1; i < members.size(); ++i) {
          const auto b = docs[members[i]].text.size(), cur = docs[members[best]].text.size();
          if ((keep == KeepPolicy::longest && b > cur) || (keep == KeepPolicy::shortest && b < cur)) best = i;
        }
        CHECK(c.kept == best);
        for (std::size_t i = 0; i < c.members.size(); ++i) {
          const DedupMember& m = c.members[i];
          CHECK(m.fingerprint == fp[m.document]);
          CHECK(m.distance == static_cast<unsigned>(std::popcount(m.fingerprint ^ fp[members[c.kept]])));
          CHECK(m.bytes == docs[m.document].text.size());
          if (m.id_kind == IdKind::key) CHECK(m.key == "https://example.org/" + std::to_string(m.document));
          if (i != c.kept) dropped[m.document] = true;
        }
      }
      std::sort(got.begin(), got.end());
      CHECK(got == expected);
      std::string want;
      for (std::size_t i = 0; i < docs.size(); ++i)
        if (!dropped[i]) want += docs[i].line + (i % 50 == 7 ? "\r\n" : "\n");
      CHECK(decoded(t.file("out.jsonl.gz")) == want);
      CHECK(r.removed == static_cast<std::uint64_t>(std::count(dropped.begin(), dropped.end(), true)));
    }
  }
}

TEST_CASE("texts in batches: the answers of a JSON Lines file of them without ids; brute force") {
  TempDir t;
  const auto docs = make_docs(16, 200);
  {
    std::ofstream out(t.file("texts.jsonl"), std::ios::binary);
    for (const Doc& d : docs) out << "{\"text\": \"" << d.text << "\"}\n";
  }
  Fingerprinter fingerprinter;
  std::vector<std::uint64_t> fp;
  for (const Doc& d : docs) fp.push_back(fingerprinter.fingerprint(d.text));
  auto members_of = [](const DedupResult& r) {
    std::vector<std::vector<std::uint64_t>> out;  // document, id, line, kept, distance, bytes
    for (const DedupCluster& c : r.clusters)
      for (std::size_t i = 0; i < c.members.size(); ++i) {
        const DedupMember& m = c.members[i];
        out.push_back({m.document, m.id, m.line, i == c.kept, m.distance, m.bytes, m.fingerprint,
                       static_cast<std::uint64_t>(m.id_kind)});
      }
    return out;
  };
  for (const std::size_t batch_size : {std::size_t{1}, std::size_t{7}, docs.size()}) {
    CAPTURE(batch_size);
    DedupOptions o;
    o.keep = KeepPolicy::longest;
    o.temp_dir = t.path.string();
    std::size_t at = 0, calls = 0;
    const DedupResult r = find_duplicates(
        [&](std::vector<std::string_view>& batch) {
          ++calls;
          for (; at < docs.size() && batch.size() < batch_size; ++at) batch.push_back(docs[at].text);
        },
        o);
    CHECK(calls == (docs.size() + batch_size - 1) / batch_size + 1);  // and the empty one that ends
    const DedupResult file = find_duplicates(t.file("texts.jsonl"), o);
    CHECK(r.documents == docs.size());
    CHECK(r.removed == file.removed);
    CHECK(members_of(r) == members_of(file));
    std::vector<std::vector<std::size_t>> got;
    for (const DedupCluster& c : r.clusters) {
      got.emplace_back();
      for (const DedupMember& m : c.members) got.back().push_back(m.document);
    }
    std::sort(got.begin(), got.end());
    CHECK(got == brute_force(fp, kDocumentK));
  }
  const DedupResult none = find_duplicates([](std::vector<std::string_view>&) {}, DedupOptions{});
  CHECK(none.documents == 0);
  CHECK(none.clusters.empty());
}

// The texts in one batch, with default options.
DedupResult dedup_texts(const std::vector<std::string>& texts, const TempDir& t) {
  DedupOptions o;
  o.temp_dir = t.path.string();
  bool given = false;
  return find_duplicates(
      [&](std::vector<std::string_view>& batch) {
        if (!std::exchange(given, true)) batch.assign(texts.begin(), texts.end());
      },
      o);
}

TEST_CASE("documents without words are kept and compared with none; the others as usual") {
  TempDir t;
  // Fingerprint 0 whatever they hold (spec/FINGERPRINT.md step 5): before, all of them were one
  // cluster of "near-duplicates" and all but one removed.
  const std::vector<std::string> texts = {"\xF0\x9F\x98\x80\xF0\x9F\x8E\x89",  // emoji
                                          "the river runs under the old stone bridge all night",
                                          "!!! ???",
                                          "",
                                          "the river runs under the old stone bridge all night",
                                          "\xE2\x9E\xA1\xEF\xB8\x8F"};
  const DedupResult r = dedup_texts(texts, t);
  CHECK(r.without_words == std::vector<std::uint64_t>{0, 2, 3, 5});
  REQUIRE(r.clusters.size() == 1);
  CHECK(r.clusters[0].members.size() == 2);
  CHECK(r.clusters[0].members[0].document == 1);
  CHECK(r.clusters[0].members[1].document == 4);
  CHECK(r.removed_documents() == std::vector<std::uint64_t>{4});
}

TEST_CASE("documents without words link no others: fingerprints of few bits set stay apart") {
  TempDir t;
  // Short texts whose fingerprints have at most k bits set (ties become 0) are within k of 0, the
  // fingerprint of a text without words, and more than k from each other: an empty text in the
  // index joined them into one cluster and all but one were removed.
  std::vector<std::string> texts;
  for (const char* n : {"4346", "5242", "11041", "12349", "18597"})
    texts.push_back(std::string("the report number ") + n);
  std::vector<std::uint64_t> fp;
  for (const std::string& text : texts) fp.push_back(fingerprint(text));
  for (std::size_t i = 0; i < fp.size(); ++i) {
    REQUIRE(std::popcount(fp[i]) <= static_cast<int>(kDocumentK));  // the case this test is about
    for (std::size_t j = 0; j < i; ++j) REQUIRE(std::popcount(fp[i] ^ fp[j]) > static_cast<int>(kDocumentK));
  }
  texts.push_back("");
  texts.push_back("\xE2\x9E\xA1\xEF\xB8\x8F");
  const DedupResult r = dedup_texts(texts, t);
  CHECK(r.without_words == std::vector<std::uint64_t>{5, 6});
  CHECK(r.clusters.empty());
  CHECK(r.removed == 0);
}

TEST_CASE("the output is compressed by its name; plain otherwise; the kept index has the key map") {
  TempDir t;
  const auto docs = make_docs(5, 40);
  {
    std::ofstream out(t.file("in.jsonl"), std::ios::binary);
    for (const Doc& d : docs) out << d.line << "\n";
  }
  DedupOptions o;
  o.documents.id_field = "url";
  o.index = t.file("kept.sdx");
  const DedupResult plain = dedup(t.file("in.jsonl"), t.file("out.jsonl"), o);
  for (const std::string name : {"out.jsonl.zst", "out.jsonl.gz"}) {
    o.index.clear();
    dedup(t.file("in.jsonl"), t.file(name), o);
    CHECK(decoded(t.file(name)) == decoded(t.file("out.jsonl")));
    std::ifstream raw(t.file(name), std::ios::binary);
    CHECK(raw.get() != '{');  // compressed
  }
  CHECK(fs::exists(t.file("kept.sdx")));
  const KeyMap keys = KeyMap::read(key_map_path(t.file("kept.sdx")));
  CHECK(keys.find(key_id("https://example.org/0")) == std::string_view("https://example.org/0"));
  CHECK(plain.removed > 0);
  // Nothing else is left behind: no temporary index, no spool.
  for (const auto& e : fs::directory_iterator(t.path)) CHECK(!e.path().filename().string().starts_with("."));
}

TEST_CASE("a directory: the kept files' paths, escaped") {
  TempDir t;
  fs::create_directories(t.path / "in" / "sub");
  const std::string text = "the same long enough text about rivers and stones and light over the fields";
  std::ofstream(t.path / "in" / "a.txt") << text;
  std::ofstream(t.path / "in" / "sub" / "b\tc.txt") << text;
  std::ofstream(t.path / "in" / "z.txt") << "something else entirely, of another kind and length";
  DedupOptions o;
  o.temp_dir = t.path.string();
  const DedupResult r = dedup((t.path / "in").string(), t.file("kept.txt"), o);
  CHECK(r.format == DocumentFormat::directory);
  REQUIRE(r.clusters.size() == 1);
  CHECK(r.clusters[0].members[1].key == "sub/b\tc.txt");
  std::ifstream in(t.file("kept.txt"));
  std::stringstream s;
  s << in.rdbuf();
  CHECK(s.str() == "a.txt\nz.txt\n");
  o.keep = KeepPolicy::longest;  // equal lengths: the first
  dedup((t.path / "in").string(), t.file("kept.txt"), o);
  std::ifstream again(t.file("kept.txt"));
  std::stringstream s2;
  s2 << again.rdbuf();
  CHECK(s2.str() == "a.txt\nz.txt\n");
}

TEST_CASE("errors: a collision of ids stops the run before any output; bad options") {
  TempDir t;
  std::ofstream(t.file("in.jsonl")) << "{\"id\": 1, \"text\": \"a b c\"}\n{\"text\": \"d e f\"}\n";
  DedupOptions o;
  o.temp_dir = t.path.string();
  try {
    dedup(t.file("in.jsonl"), t.file("out.jsonl"), o);
    FAIL("no error");
  } catch (const Error& e) {
    CHECK(e.code() == errc::input);
    CHECK(std::string(e.what()).find(
              "id 1 is the integer id of line 1 and the id of line 2 (a record without one") !=
          std::string::npos);
  }
  CHECK(!fs::exists(t.file("out.jsonl")));
  CHECK(keep_policy("longest") == KeepPolicy::longest);
  CHECK_THROWS_AS(keep_policy("best"), Error);
  o.k = 33;
  CHECK_THROWS_AS(dedup(t.file("in.jsonl"), t.file("out.jsonl"), o), Error);
  // A memory bound below 1 MiB is refused before any work (it said "line longer than 0 bytes",
  // naming the copy of the texts it had made).
  o.k = 3;
  o.memory_bytes = 1;
  for (const auto& call :
       std::vector<std::function<void()>>{[&] { dedup(t.file("in.jsonl"), t.file("out.jsonl"), o); },
                                          [&] { find_duplicates(t.file("in.jsonl"), o); },
                                          [&] {
                                            bool given = false;
                                            find_duplicates(
                                                [&](std::vector<std::string_view>& batch) {
                                                  if (!std::exchange(given, true)) batch.push_back("a text");
                                                },
                                                o);
                                          }})
    CHECK_THROWS_WITH_AS(call(), doctest::Contains("usage: the memory bound must be at least 1 MiB"), Error);
  o.memory_bytes = 0;
  CHECK_THROWS_AS(write_deduplicated("-", DedupResult{}, t.file("out.jsonl"), o), Error);
}

TEST_CASE("an input written to in place between its two reads stops the run; a pipe is read once") {
  TempDir t;
  const std::string input = t.file("in.jsonl");
  // Two duplicates last: an edit of the first (same size, same lines) after it was fingerprinted
  // would be written out as if it were the copy found, and the copy dropped.
  std::ofstream(input) << "{\"text\": \"one two three four\"}\n{\"text\": \"alpha beta gamma delta\"}\n"
                       << "{\"text\": \"alpha beta gamma delta\"}\n";
  fs::last_write_time(input, fs::last_write_time(input) - std::chrono::hours(1));  // an older file
  DedupOptions o;
  o.temp_dir = t.path.string();
  bool edited = false;
  o.progress = [&](std::string_view stage, std::uint64_t, std::uint64_t) {
    if (stage != "clusters" || edited) return;
    edited = true;
    std::fstream f(input, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(std::string_view("{\"text\": \"one two three four\"}\n{\"text\": \"").size());
    f << "ALFAX";
  };
  try {
    dedup(input, t.file("out.jsonl"), o);
    FAIL("no error");
  } catch (const Error& e) {
    CHECK(e.code() == errc::input);
    CHECK(std::string(e.what()).find("the input changed while it was read") != std::string::npos);
  }
  CHECK(edited);
  CHECK(!fs::exists(t.file("out.jsonl")));

  // A FIFO: copied once (a second open would wait for a writer that is gone), as standard input is.
  const std::string fifo = t.file("pipe");
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  std::thread writer([&] { std::ofstream(fifo) << "{\"text\": \"a b c d\"}\n{\"text\": \"a b c d\"}\n"; });
  o.progress = nullptr;
  const DedupResult r = dedup(fifo, t.file("out.jsonl"), o);
  writer.join();
  CHECK(r.documents == 2);
  CHECK(r.removed == 1);
  CHECK(decoded(t.file("out.jsonl")) == "{\"text\": \"a b c d\"}\n");
  CHECK_THROWS_AS(write_deduplicated(fifo, r, t.file("out2.jsonl"), o), Error);  // refused, not waiting
}
