// The partial forests of `simdex-mpi clusters`: the fingerprints of some edges united, and (on rank 0,
// with --ids) each with its ids. A rank builds one from the pairs it found and sends (fingerprint,
// root) for each of its fingerprints; rank 0 builds one from all of those and adds the ids every rank
// reads for them from its members. Memory: the fingerprints that occur in pairs and their distinct
// ids, never every stored fingerprint, nor every pair (near-duplicate data has up to n^2/2 pairs
// among n fingerprints: each edge is united as it comes).
#pragma once

#include <cstdint>
#include <span>
#include <unordered_map>
#include <utility>
#include <vector>

namespace simdex::mpi {

class Forest {
 public:
  void add_edge(uint64_t a, uint64_t b);
  // The ids of `fingerprint` (a node, or one to be): each (fingerprint, id) kept once, duplicates
  // dropped as they accumulate (a fingerprint of many pairs brings its ids with each).
  template <class Ids>
  void add_ids(uint64_t fingerprint, const Ids& ids) {
    for (uint64_t id : ids) fp_ids_.emplace_back(fingerprint, id);
    if (fp_ids_.size() >= compact_at_) compact_ids();
  }
  // The fingerprints of the edges so far, ascending.
  std::vector<uint64_t> sorted_nodes() const;
  // Ends the adding. Afterwards: nodes() ascending, root(i) the smallest fingerprint of node i's
  // component, ids(i) node i's ids (ascending, each once).
  void unite();
  const std::vector<uint64_t>& nodes() const { return nodes_; }
  uint64_t root(std::size_t node) const { return nodes_[root_[node]]; }
  std::size_t root_index(std::size_t node) const { return root_[node]; }
  std::span<const uint64_t> ids(std::size_t node) const;

 private:
  std::size_t node(uint64_t fingerprint);  // its index in parent_, made when first seen
  std::size_t find(std::size_t x);
  void compact_ids();  // sorted, each pair once

  // While adding: a union-find over the fingerprints in the order first seen.
  std::unordered_map<uint64_t, std::size_t> index_;
  std::vector<uint64_t> seen_;
  std::vector<std::size_t> parent_;
  std::vector<std::pair<uint64_t, uint64_t>> fp_ids_;
  std::size_t compact_at_ = std::size_t{1} << 20;
  // After unite().
  std::vector<uint64_t> nodes_, ids_;
  std::vector<std::size_t> root_, ids_begin_;
};

}  // namespace simdex::mpi
