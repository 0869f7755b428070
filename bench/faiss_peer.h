// FAISS IndexBinaryMultiHash as the peer of the latency benchmarks (compare_bench, latency_bench),
// in its fastest setting for 64-bit codes and k = 3: 2 hashes of 32 bits, nflip 1 (issue 7), one
// OpenMP thread. A one-query call is range_search with radius k + 1 (FAISS's binary range search
// keeps distances strictly below the radius). Only compiled where FAISS is (SIMDEX_HAVE_FAISS).
#pragma once

#include <faiss/IndexBinaryHash.h>
#include <faiss/impl/AuxIndexStructures.h>
#include <omp.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <fstream>
#include <memory>
#include <utility>
#include <vector>

namespace simdex::bench {

inline long resident_bytes() {
  std::ifstream in("/proc/self/statm");
  long size = 0, resident = 0;
  in >> size >> resident;
  return resident * ::sysconf(_SC_PAGESIZE);
}

class FaissPeer {
 public:
  using Answer = std::vector<std::pair<unsigned, uint64_t>>;  // (distance, fingerprint), sorted
  explicit FaissPeer(const std::vector<uint64_t>& fingerprints) : fingerprints_(&fingerprints) {
    // Set before any FAISS call, in the thread that makes the calls: FAISS parallelizes a batch
    // over OpenMP threads, and a one-query call gains nothing from a team.
    omp_set_num_threads(1);
    const long before = resident_bytes();
    index_ = std::make_unique<faiss::IndexBinaryMultiHash>(64, 2, 32);
    index_->nflip = 1;
    index_->add(static_cast<faiss::IndexBinary::idx_t>(fingerprints.size()),
                reinterpret_cast<const uint8_t*>(fingerprints.data()));
    bytes_per_fp_ = static_cast<double>(resident_bytes() - before) / static_cast<double>(fingerprints.size());
  }
  double bytes_per_fp() const { return bytes_per_fp_; }
  const faiss::IndexBinaryMultiHash& index() const { return *index_; }

  // One query, as a caller makes it: a result object per call (FAISS allocates its arrays). Its
  // buffer_size is set to what one query needs: the default (256 Ki entries, 3 MiB of buffers per
  // call) is sized for batches. Returns the hit count.
  std::size_t query(uint64_t q, unsigned k) const {
    faiss::RangeSearchResult r(1);
    r.buffer_size = kBufferEntries;
    const uint64_t padded[2] = {q, 0};  // FAISS reads the second 32-bit hash as a 64-bit word
    index_->range_search(1, reinterpret_cast<const uint8_t*>(padded), static_cast<int>(k) + 1, &r);
    return r.lims[1];
  }
  // The same call with FAISS's default result buffers (how compare_bench called it before).
  std::size_t query_default_buffers(uint64_t q, unsigned k) const {
    faiss::RangeSearchResult r(1);
    const uint64_t padded[2] = {q, 0};
    index_->range_search(1, reinterpret_cast<const uint8_t*>(padded), static_cast<int>(k) + 1, &r);
    return r.lims[1];
  }
  // A batch, as FAISS takes one: `padded` holds the queries and one more word (see query()); the
  // result buffers at FAISS's default size, which is what they are for. Returns the hit count.
  std::size_t batch(const std::vector<uint64_t>& padded, unsigned k) const {
    const std::size_t n = padded.size() - 1;
    faiss::RangeSearchResult r(static_cast<faiss::IndexBinary::idx_t>(n));
    index_->range_search(static_cast<faiss::IndexBinary::idx_t>(n),
                         reinterpret_cast<const uint8_t*>(padded.data()), static_cast<int>(k) + 1, &r);
    return r.lims[n];
  }
  Answer answer(uint64_t q, unsigned k) const {
    faiss::RangeSearchResult r(1);
    r.buffer_size = kBufferEntries;
    const uint64_t padded[2] = {q, 0};
    index_->range_search(1, reinterpret_cast<const uint8_t*>(padded), static_cast<int>(k) + 1, &r);
    Answer a;
    for (std::size_t j = r.lims[0]; j < r.lims[1]; ++j)
      a.emplace_back(static_cast<unsigned>(r.distances[j]),
                     (*fingerprints_)[static_cast<std::size_t>(r.labels[j])]);
    std::sort(a.begin(), a.end());
    return a;
  }

 private:
  static constexpr std::size_t kBufferEntries = 1024;
  const std::vector<uint64_t>* fingerprints_;
  std::unique_ptr<faiss::IndexBinaryMultiHash> index_;
  double bytes_per_fp_ = 0;
};

}  // namespace simdex::bench
