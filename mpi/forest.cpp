#include "mpi/forest.h"

#include <algorithm>

#include "reader/union_find.h"

namespace simdex::mpi {

void Forest::add_ids(uint64_t fingerprint, std::span<const uint64_t> ids) {
  for (uint64_t id : ids) fp_ids_.emplace_back(fingerprint, id);
}

void Forest::unite() {
  nodes_.clear();
  for (const auto& [a, b] : edges_) nodes_.insert(nodes_.end(), {a, b});
  std::sort(nodes_.begin(), nodes_.end());
  nodes_.erase(std::unique(nodes_.begin(), nodes_.end()), nodes_.end());
  auto index = [&](uint64_t fp) {
    return static_cast<uint64_t>(std::lower_bound(nodes_.begin(), nodes_.end(), fp) - nodes_.begin());
  };
  reader::ConcurrentUnionFind sets(nodes_.size());  // a component's root: its smallest node
  for (const auto& [a, b] : edges_) sets.unite(index(a), index(b));
  decltype(edges_)().swap(edges_);
  root_.resize(nodes_.size());
  for (std::size_t i = 0; i < nodes_.size(); ++i) root_[i] = sets.find(i);

  std::sort(fp_ids_.begin(), fp_ids_.end());
  fp_ids_.erase(std::unique(fp_ids_.begin(), fp_ids_.end()), fp_ids_.end());
  ids_.clear();
  ids_begin_.assign(nodes_.size() + 1, 0);
  std::size_t at = 0;
  for (std::size_t i = 0; i < nodes_.size(); ++i) {
    ids_begin_[i] = ids_.size();
    while (at < fp_ids_.size() && fp_ids_[at].first < nodes_[i]) ++at;  // ids of no node: none kept
    for (; at < fp_ids_.size() && fp_ids_[at].first == nodes_[i]; ++at) ids_.push_back(fp_ids_[at].second);
  }
  ids_begin_[nodes_.size()] = ids_.size();
  decltype(fp_ids_)().swap(fp_ids_);
}

std::span<const uint64_t> Forest::ids(std::size_t node) const {
  return std::span<const uint64_t>(ids_).subspan(ids_begin_[node], ids_begin_[node + 1] - ids_begin_[node]);
}

}  // namespace simdex::mpi
