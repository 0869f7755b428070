// Hostile files: no truncation or bit flip may crash a reader, and verify must catch every one.
#include <doctest/doctest.h>

#include "format/endian.h"
#include "format/layout.h"
#include "reseal.h"
#include "test_util.h"

using namespace simdex;
using namespace simdex::test;

namespace {

std::vector<uint8_t> small_index(unsigned n, uint32_t block_bytes, const char* scheme = "paper-4") {
  std::mt19937_64 rng(21);
  TempDir dir;
  BuildOptions o;
  o.scheme = Scheme::named(scheme, 3, 0);
  o.block_bytes = block_bytes;
  Pairs pairs = clustered_pairs(rng, n, 3);
  for (unsigned i = 0; i < n / 10; ++i) pairs.emplace_back(pairs[i].first, 1000 + i);  // several ids
  build(dir.file("s.sdx"), pairs, o);
  return read_bytes(dir.file("s.sdx"));
}

std::string open_error(const std::vector<uint8_t>& f) {
  try {
    Index::from_buffer(f.data(), f.size());
  } catch (const Error& e) {
    return std::string(errc_name(e.code()));
  }
  return "";
}

// Open, query and verify; returns true when the damage was noticed (open threw or verify failed).
bool noticed(const std::vector<uint8_t>& f, const std::vector<uint64_t>& queries) {
  try {
    const Index index = Index::from_buffer(f.data(), f.size());
    bool query_error = false;
    for (uint64_t q : queries) {
      try {
        (void)index.query(q, 3);
      } catch (const Error&) {
        query_error = true;
      }
    }
    const bool bad = !index.verify().ok();
    if (query_error) CHECK(bad);  // whatever a query notices, verify notices too
    return bad;
  } catch (const Error&) {
    return true;
  }
}

}  // namespace

TEST_CASE("every truncation is rejected at open") {
  const auto f = small_index(60, 64);
  for (std::size_t len = 0; len < f.size(); ++len) {
    const std::vector<uint8_t> cut(f.begin(), f.begin() + static_cast<long>(len));
    CAPTURE(len);
    CHECK(!open_error(cut).empty());
  }
  CHECK(open_error(f).empty());
}

TEST_CASE("every single-bit flip is noticed by open or verify, and never crashes a query") {
  const auto f = small_index(60, 64);
  std::vector<uint64_t> queries;
  std::mt19937_64 rng(22);
  for (int i = 0; i < 4; ++i) queries.push_back(rng());
  {
    const Index index = Index::from_buffer(f.data(), f.size());
    for (const auto& h : index.query(queries[0], 3)) (void)h;
    for (uint64_t q : {uint64_t{0}, ~uint64_t{0}}) queries.push_back(q);
  }
  for (std::size_t bit = 0; bit < f.size() * 8; ++bit) {
    auto g = f;
    g[bit / 8] ^= static_cast<uint8_t>(1u << (bit % 8));
    CAPTURE(bit);
    CHECK(noticed(g, queries));
  }
}

// Where entry i of the section table of a file of `tables` tables lies.
std::size_t section_entry(uint32_t tables, uint32_t i) {
  return format::FileHeader::kEncodedBytes + tables * format::TableDescriptor::kEncodedBytes +
         i * format::SectionEntry::kEncodedBytes;
}

TEST_CASE("open-time rules give their named errors") {
  const auto f = small_index(200, 128);
  auto expect = [&](const char* rule, auto&& mutate, bool seal = true) {
    auto g = f;
    mutate(g);
    if (seal) reseal_header(g.data(), g.size());  // so a test reaches the rule behind the checksum
    CAPTURE(rule);
    CHECK(open_error(g) == rule);
  };
  expect(
      "bad_magic", [](auto& g) { g[1] = 'X'; }, false);
  expect(
      "unsupported_version", [](auto& g) { g[8] = 3; }, false);
  expect(
      "header_checksum", [](auto& g) { g[60] ^= 1; }, false);
  expect("reserved_nonzero", [](auto& g) { g[12] = 1; });
  expect("reserved_nonzero", [](auto& g) { g[100] = 1; });
  expect("reserved_nonzero", [](auto& g) { g[128 + 150] = 1; });                        // table 0 descriptor
  expect("bad_header_field", [](auto& g) { format::store_le32(g.data() + 48, 100); });  // block_bytes
  expect("bad_header_field", [](auto& g) { g[53] = 7; });                               // id_layout
  expect(
      "file_size_mismatch", [](auto& g) { g.push_back(0); }, false);
  expect("bad_permutation", [](auto& g) { g[128 + 5] = g[128 + 6]; });
  expect("bad_code_lengths", [](auto& g) {
    for (int s = 0; s < 64; ++s) g[128 + 64 + s] = 1;  // 64 codes of length 1: over-subscribed
  });
  expect("section_layout", [](auto& g) {
    const uint8_t* e = g.data() + section_entry(4, 3 * 4);  // ID_OFFSETS entry
    format::store_le64(g.data() + (e - g.data()) + 8, format::load_le64(e + 8) + 8);
  });
}

TEST_CASE("verify names the rule: block checksum, section checksum") {
  const auto f = small_index(200, 128);
  const uint64_t region = format::header_region_bytes(4, test::tagged_section_count(f.data()));
  auto g = f;
  g[region + 20] ^= 0x10;  // inside table 0's first block
  const Index index = Index::from_buffer(g.data(), g.size());
  const auto report = index.verify();
  REQUIRE(!report.ok());
  bool block = false, section = false;
  for (const auto& p : report.problems) {
    block |= p.code == errc::block_checksum;
    section |= p.code == errc::section_checksum;
  }
  CHECK(block);
  CHECK(section);
}

TEST_CASE("reseal: a mutated file keeps no checksum problem, so the rules behind them are reached") {
  const auto f = small_index(200, 128);
  const uint64_t region = format::header_region_bytes(4, test::tagged_section_count(f.data()));
  const uint8_t* ids = f.data() + section_entry(4, 3 * 4 + 1);
  auto g = f;
  g[region + 20] ^= 0x10;  // inside table 0's first block: its bit stream
  g[format::load_le64(ids + 8) + format::load_le64(ids + 16) - 3] ^= 0x01;  // inside IDS
  g[60] ^= 0x01;  // inside scheme_name, in the header
  reseal(g.data(), g.size());
  try {
    const auto report = Index::from_buffer(g.data(), g.size()).verify();
    for (const auto& p : report.problems) {
      CAPTURE(p.what);
      CHECK(p.code != errc::header_checksum);
      CHECK(p.code != errc::block_checksum);
      CHECK(p.code != errc::section_checksum);
    }
  } catch (const Error& e) {
    CHECK(e.code() != errc::header_checksum);
  }
  auto h = f;
  reseal(h.data(), h.size());
  CHECK(h == f);  // a good file is sealed already
}
