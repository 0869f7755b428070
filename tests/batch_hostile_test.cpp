// Batch work (pairs, join, clusters) on hostile files that open cleanly: ranks that lie, schemes
// that make the work explode, thread creation that fails. Every case ends in a simdex::Error or a
// right answer, never a crash.
#include <doctest/doctest.h>

#include <chrono>

#include "format/checksum.h"
#include "format/endian.h"
#include "format/layout.h"
#include "reader/index_file.h"
#include "simdex/batch.h"
#include "test_util.h"

using namespace simdex;
using namespace simdex::test;

namespace {

std::vector<uint8_t> built(const Pairs& pairs, Scheme scheme, uint32_t block_bytes) {
  TempDir dir;
  BuildOptions o;
  o.scheme = std::move(scheme);
  o.block_bytes = block_bytes;
  build(dir.file("h.sdx"), pairs, o);
  return read_bytes(dir.file("h.sdx"));
}

// Rewrites every section checksum, then the header checksum: after an edit the file is
// checksum-valid again, as a hostile file would be.
void reseal(std::vector<uint8_t>& f) {
  const uint32_t tables = format::load_le32(f.data() + 40);
  const uint64_t at = format::FileHeader::kEncodedBytes + uint64_t{tables} * format::TableDescriptor::kEncodedBytes;
  for (uint32_t i = 0; i < format::section_count_for(tables); ++i) {
    uint8_t* entry = f.data() + at + i * format::SectionEntry::kEncodedBytes;
    auto s = format::SectionEntry::decode_from(entry);
    s.checksum = format::checksum64(f.data() + s.offset, s.bytes);
    s.encode_to(entry);
  }
  const uint64_t region = format::header_region_bytes(tables);
  format::store_le64(f.data() + format::FileHeader::kChecksumOffset, format::header_region_checksum(f.data(), region));
}

// Sets BLOCK_RANKS[block] of `table` and reseals.
std::vector<uint8_t> with_rank(std::vector<uint8_t> f, uint32_t table, uint64_t block, uint64_t rank) {
  const auto file = reader::IndexFile::parse(f.data(), f.size());
  REQUIRE(block < file.tables()[table].block_count());
  const auto at = static_cast<std::size_t>(file.tables()[table].ranks - f.data()) + 8 * block;
  format::store_le64(f.data() + at, rank);
  reseal(f);
  return f;
}

// The code of the Error that `run` throws; "" when it throws none.
template <typename Run>
std::string error_of(Run&& run) {
  try {
    run();
  } catch (const Error& e) {
    return std::string(errc_name(e.code()));
  }
  return "";
}

void pairs(const Index& index, BatchOptions o) {
  find_pairs(index, o, [](std::span<const NearPair>) {});
}
void joined(const Index& index, const std::vector<Query>& queries, BatchOptions o) {
  join(index, queries, o, [](std::span<const JoinHit>) {});
}
void clusters(const Index& index, BatchOptions o) {
  find_clusters(index, o, {}, [](std::span<const ClusterMember>) {});
}

std::vector<Query> queries_of(const Pairs& pairs) {
  std::vector<Query> q;
  for (auto [f, id] : pairs) q.push_back({f, id});
  return q;
}

}  // namespace

TEST_CASE("ranks from BLOCK_RANKS are checked before they index anything, in every batch command") {
  std::mt19937_64 rng(5);
  const Pairs data = clustered_pairs(rng, 3000, 3);
  const auto good = built(data, Scheme::named("paper-4", 3, 0), 128);
  const auto n = reader::IndexFile::parse(good.data(), good.size()).header().fingerprint_count;
  const auto queries = queries_of(data);
  BatchOptions o;
  o.threads = 3;
  o.with_ids = true;
  // Past the end, wrapping around 64 bits, and in range but not where the block starts.
  for (const uint64_t rank : {n, n + 1000, UINT64_MAX - 5, uint64_t{1}}) {
    CAPTURE(rank);
    const auto bad = with_rank(good, 0, 3, rank);
    const Index index = Index::from_buffer(bad.data(), bad.size());
    CHECK(error_of([&] { clusters(index, o); }) == "block_ranks");
    CHECK(error_of([&] { pairs(index, o); }) == "block_ranks");
    if (rank >= n) CHECK(error_of([&] { joined(index, queries, o); }) == "block_ranks");
    CHECK(!index.verify().ok());
  }
  // Table 0's first rank, which no chain of counts checks.
  const auto bad = with_rank(good, 0, 0, 7);
  const Index index = Index::from_buffer(bad.data(), bad.size());
  CHECK(error_of([&] { clusters(index, o); }) == "block_ranks");
}
