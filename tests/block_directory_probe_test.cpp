// Probing through BLOCK_DIRECTORY (spec/FORMAT.md §5.3, §9) against probing through the keys, on
// random, clustered and dense-prefix data (many blocks in one slot: the fallback search), at block
// sizes from 32 bytes: where each probe starts, and every answer against brute force. Then hostile
// directories: any entries, resealed, never crash a query, and verify names them.
#include <doctest/doctest.h>

#include <random>

#include "format/block_directory.h"
#include "format/endian.h"
#include "reader/index_impl.h"
#include "reseal.h"
#include "simdex/batch.h"
#include "test_util.h"

using namespace simdex;
using namespace simdex::test;

namespace {

struct Case {
  const char* name;
  Pairs pairs;
  uint32_t block_bytes;
};

std::vector<Case> cases() {
  std::mt19937_64 rng(11);
  std::vector<Case> out;
  for (uint32_t b : {32u, 256u}) {
    out.push_back({"random", random_pairs(rng, 6000), b});
    out.push_back({"clustered", clustered_pairs(rng, 6000, 3), b});
    out.push_back({"dense prefix", dense_prefix_pairs(rng, 6000, 40), b});
    out.push_back({"two blocks", random_pairs(rng, b == 32 ? 4 : 40), b});
  }
  return out;
}

// body(case, index) for each case, its pairs built into a paper-10 index and opened.
template <typename Body>
void for_each_case(Body&& body) {
  for (const Case& c : cases()) {
    CAPTURE(c.name);
    CAPTURE(c.block_bytes);
    TempDir dir;
    build(dir.file("d.sdx"), c.pairs, "paper-10", c.block_bytes);
    body(c, Index::open(dir.file("d.sdx")));
  }
}

// The invariant of TableView::scan_start(x): every block before it ends below x, and it is either
// the first block whose key is >= x or the block just before it (which then also ends below x).
void check_scan_start(const reader::TableView& t, uint64_t x) {
  const uint64_t j = t.scan_start(x), exact = t.first_block_not_below(x);
  CAPTURE(x);
  CHECK((j == exact || (j + 1 == exact && t.key(j) < x)));
}

// check_scan_start at every key, right after it, at every first entry and right before it, at 2,000
// values of every magnitude, and at both ends.
void check_scan_starts(const reader::TableView& t, std::mt19937_64& rng) {
  for (uint64_t j = 0; j < t.block_count(); ++j)
    for (uint64_t x : {t.key(j), t.key(j) + 1, t.first_entry(j), t.first_entry(j) - 1})
      check_scan_start(t, x);
  for (int i = 0; i < 2000; ++i) check_scan_start(t, rng() >> (rng() % 64));
  check_scan_start(t, 0);
  check_scan_start(t, ~uint64_t{0});
}

}  // namespace

TEST_CASE("a probe through the directory starts where the keys say and answers as brute force") {
  for_each_case([](const Case& c, const Index& index) {
    const reader::IndexFile& file = index_impl(index).file;
    std::mt19937_64 rng(3);
    bool directory = false;
    for (const reader::TableView& t : file.tables()) {
      directory |= t.directory != nullptr;
      if (t.block_count() == 0) continue;
      check_scan_starts(t, rng);
    }
    CHECK(directory);
    const Oracle oracle(c.pairs);
    for (uint64_t q : queries_for(rng, c.pairs, 3, 1500)) {
      CAPTURE(q);
      REQUIRE(answer(index, q, 3) == oracle.query(q, 3));
    }
  });
}

TEST_CASE("a coarse directory: the probe guesses among many blocks a slot and starts where the keys say") {
  // simdex caps d_t at 18 bits (format::kWriterMaxDirectoryBits), so a table of more blocks has
  // several a slot: the same here at test sizes with directories of 1 .. d_t - 1 bits made from the
  // keys (interpolation, walks of a few blocks either way, the key search beyond).
  for_each_case([](const Case&, const Index& index) {
    const reader::IndexFile& file = index_impl(index).file;
    std::mt19937_64 rng(4);
    for (reader::TableView t : file.tables()) {
      if (t.block_count() < 2) continue;
      for (unsigned bits = 1; bits < format::directory_bits_for(t.block_count()); bits += 2) {
        CAPTURE(bits);
        std::vector<uint8_t> entries;
        uint64_t j = 0;
        format::for_each_slot_block(
            bits, t.block_count(), [&] { return t.key(j++); },
            [&](uint64_t, uint64_t block) {
              entries.resize(entries.size() + 4);
              format::store_le32(entries.data() + entries.size() - 4, static_cast<uint32_t>(block));
            });
        std::atomic<const uint32_t*> copy{nullptr};
        t.directory = entries.data();
        t.directory_bits = bits;
        t.directory_slot = &copy;
        check_scan_starts(t, rng);
        REQUIRE(copy.load() != nullptr);  // the probes read the copy
        delete[] copy.load();
      }
    }
  });
}

TEST_CASE("hostile directory entries: no crash, and verify names BLOCK_DIRECTORY") {
  std::mt19937_64 rng(8);
  const Pairs pairs = clustered_pairs(rng, 5000, 3);
  TempDir dir;
  build(dir.file("h.sdx"), pairs, "paper-4", 64);
  const std::vector<uint8_t> good = read_bytes(dir.file("h.sdx"));
  const auto view = reader::IndexFile::parse(good.data(), good.size());
  const reader::TableView& t0 = view.tables()[0];
  REQUIRE(t0.directory != nullptr);
  const std::size_t first = static_cast<std::size_t>(t0.directory - good.data());
  const std::size_t entries = std::size_t{1} << t0.directory_bits;
  for (int round = 0; round < 40; ++round) {
    std::vector<uint8_t> f = good;
    for (int change = 0; change < 1 + round % 8; ++change) {
      const uint64_t value = round % 3 == 0 ? rng() : round % 3 == 1 ? rng() % (t0.block_count() + 3) : 0;
      format::store_le32(f.data() + first + 4 * (rng() % entries), static_cast<uint32_t>(value));
    }
    reseal(f.data(), f.size());
    const Index index = Index::from_buffer(f.data(), f.size());
    std::vector<Hit> hits;
    // Any answer or a clear error (a fingerprint that table 0's probe misses: table_mismatch), no crash.
    for (uint64_t q : queries_for(rng, pairs, 3, 300)) {
      try {
        index.query(q, 3, hits);
      } catch (const Error& e) {
        CHECK(e.code() == errc::table_mismatch);
      }
    }
    for (const auto& [fp, id] : pairs) (void)index.ids_of(fp);
    const VerifyReport report = index.verify();
    if (f == good) continue;
    // Every wrong slot is named (the good file's entries are the right ones), not only the first.
    std::size_t wrong_slots = 0, named = 0;
    for (std::size_t slot = 0; slot < entries; ++slot)
      wrong_slots +=
          format::load_le32(f.data() + first + 4 * slot) != format::load_le32(good.data() + first + 4 * slot);
    for (const Problem& p : report.problems) named += p.code == errc::bad_tagged_section;
    CHECK(named == wrong_slots);
  }
}

TEST_CASE("ranks_of: each stored fingerprint's rank in table 0, UINT64_MAX for the others") {
  for_each_case([](const Case&, const Index& index) {
    const reader::IndexFile& file = index_impl(index).file;
    const reader::TableView& t = file.tables()[0];
    // The truth: table 0 decoded whole, each entry with its rank.
    std::vector<std::pair<uint64_t, uint64_t>> truth;  // (fingerprint, rank)
    for (uint64_t j = 0; j < t.block_count(); ++j)
      file.decode(t, j, [&](uint64_t e, uint32_t i) {
        truth.emplace_back(t.permutation.invert(e), file.rank_at(t, j, i));
        return true;
      });
    std::mt19937_64 rng(5);
    std::vector<uint64_t> asked;
    std::vector<uint64_t> expected;
    for (const auto& [f, rank] : truth) {
      asked.push_back(f);
      expected.push_back(rank);
      const uint64_t near = f ^ (uint64_t{1} << (rng() % 64));  // absent unless stored too
      const bool stored =
          std::any_of(truth.begin(), truth.end(), [&](const auto& x) { return x.first == near; });
      if (!stored) {
        asked.push_back(near);
        expected.push_back(UINT64_MAX);
      }
    }
    std::vector<uint64_t> ranks(asked.size());
    file.ranks_of(asked, ranks);  // many windows at once
    CHECK(ranks == expected);
    for (std::size_t i = 0; i < asked.size(); i += 97) CHECK(file.rank_of(asked[i]) == expected[i]);
  });
}
