// The partial forests of `simdex-mpi clusters`: the fingerprints of some edges, each with its ids,
// united. A rank builds one from the pairs it found and sends (fingerprint, root, ids) for each of its
// fingerprints; rank 0 builds one from all of those. Memory: the fingerprints that occur in pairs,
// never every stored fingerprint.
#pragma once

#include <cstdint>
#include <span>
#include <utility>
#include <vector>

namespace simdex::mpi {

class Forest {
 public:
  void add_edge(uint64_t a, uint64_t b) { edges_.emplace_back(a, b); }
  void add_ids(uint64_t fingerprint, std::span<const uint64_t> ids);
  // Unites the edges. Afterwards: nodes() ascending, root(i) the smallest fingerprint of node i's
  // component, ids(i) node i's ids (ascending, each once).
  void unite();
  const std::vector<uint64_t>& nodes() const { return nodes_; }
  uint64_t root(std::size_t node) const { return nodes_[root_[node]]; }
  std::size_t root_index(std::size_t node) const { return root_[node]; }
  std::span<const uint64_t> ids(std::size_t node) const;

 private:
  std::vector<std::pair<uint64_t, uint64_t>> edges_, fp_ids_;
  std::vector<uint64_t> nodes_, ids_;
  std::vector<std::size_t> root_, ids_begin_;
};

}  // namespace simdex::mpi
