// An Index whose answers come from somewhere other than one mapped file: an index set (set/, a room
// above this one, spec/SET.md). reader/ knows only this interface: every public method of Index and
// of simdex/batch.h hands the call to it when an Index has one.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <vector>

#include "simdex/batch.h"
#include "simdex/index.h"

namespace simdex::reader {

class IndexComposite {
 public:
  virtual ~IndexComposite() = default;
  virtual uint64_t fingerprint_count() const = 0;
  virtual unsigned max_distance() const = 0;
  virtual unsigned search_distance(int k) const = 0;
  virtual std::size_t table_count() const = 0;
  virtual void query(uint64_t fingerprint, unsigned k, std::vector<Hit>& out) const = 0;
  virtual IdList ids_of(uint64_t fingerprint) const = 0;
  virtual IndexInfo info() const = 0;
  virtual uint64_t checksum() const = 0;
  virtual std::optional<FingerprintSettings> fingerprint_settings() const = 0;
  virtual VerifyReport verify() const = 0;
  virtual void check_unchanged() const = 0;
  virtual Index reopen() const = 0;
  virtual BatchStats find_pairs(const BatchOptions& options,
                                const std::function<void(std::span<const NearPair>)>& on_pairs) const = 0;
  virtual BatchStats join(std::span<const Query> queries, const BatchOptions& options,
                          const std::function<void(std::span<const JoinHit>)>& on_hits) const = 0;
  virtual BatchStats find_clusters(
      const BatchOptions& options, const ClusterOptions& cluster_options,
      const std::function<void(std::span<const ClusterMember>)>& on_cluster) const = 0;
};

}  // namespace simdex::reader
