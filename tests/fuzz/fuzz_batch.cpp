// libFuzzer targets over the batch commands. One source, three targets, chosen by
// SIMDEX_FUZZ_TARGET: 1 find_pairs, 2 join, 3 find_clusters. The input is an index file that the
// fuzzer mutates; its checksums are re-sealed before it is opened (tests/reseal.h), so mutations
// reach the ranks, counts and blocks behind them instead of dying at a checksum. A target passes
// when every input either runs or throws simdex::Error (a corrupt block, a work limit, ...).
#include <cstddef>
#include <cstdint>
#include <vector>

#include "format/endian.h"
#include "reseal.h"
#include "simdex/batch.h"
#include "simdex/index.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
  std::vector<uint8_t> file(data, data + size);
  simdex::test::reseal(file.data(), file.size());
  try {
    const simdex::Index index = simdex::Index::from_buffer(file.data(), file.size());
    simdex::BatchOptions options;
    options.threads = 2;  // more than one: the batch code's cross-thread paths
    options.with_ids = true;
    uint64_t seen = 0;  // every result and id is read: ASan checks the bytes behind them
    auto touch = [&](const simdex::IdList& ids) {
      for (uint64_t id : ids) seen += id;
    };
#if SIMDEX_FUZZ_TARGET == 1
    options.duplicates = true;
    simdex::find_pairs(index, options, [&](std::span<const simdex::NearPair> pairs) {
      for (const auto& p : pairs) {
        seen += p.a ^ p.b ^ p.distance;
        touch(p.ids_a);
        touch(p.ids_b);
      }
    });
#elif SIMDEX_FUZZ_TARGET == 2
    // Queries near what the file holds (its middle bytes), the extremes, and a repeat.
    uint64_t middle = 0;
    if (size >= 16) middle = simdex::format::load_le64(file.data() + (size / 2 & ~std::size_t{7}));
    const std::vector<simdex::Query> queries = {
        {0, 0}, {~uint64_t{0}, 1}, {middle, 2}, {middle ^ 0x8001, 3}, {0x5555555555555555, 4}, {middle, 5}};
    // At the index's k and below it (only some tables read: IndexFile::tables_within).
    for (int k : {-1, static_cast<int>(index.max_distance() / 2)}) {
      options.k = k;
      simdex::join(index, queries, options, [&](std::span<const simdex::JoinHit> hits) {
        for (const auto& h : hits) {
          seen += h.query ^ h.fingerprint;
          touch(h.ids);
        }
      });
    }
#elif SIMDEX_FUZZ_TARGET == 3
    simdex::ClusterOptions cluster_options;
    cluster_options.min_size = 1;
    simdex::find_clusters(index, options, cluster_options,
                          [&](std::span<const simdex::ClusterMember> members) {
                            for (const auto& m : members) {
                              seen += m.fingerprint;
                              touch(m.ids);
                            }
                          });
#else
#error "SIMDEX_FUZZ_TARGET must be 1, 2 or 3"
#endif
    (void)seen;
  } catch (const simdex::Error&) {
  }
  return 0;
}
