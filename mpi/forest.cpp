#include "mpi/forest.h"

#include <algorithm>
#include <numeric>

namespace simdex::mpi {

std::size_t Forest::node(uint64_t fingerprint) {
  const auto [it, made] = index_.try_emplace(fingerprint, seen_.size());
  if (made) {
    seen_.push_back(fingerprint);
    parent_.push_back(it->second);
  }
  return it->second;
}

std::size_t Forest::find(std::size_t x) {
  while (parent_[x] != x) x = parent_[x] = parent_[parent_[x]];  // path halving
  return x;
}

void Forest::add_edge(uint64_t a, uint64_t b) {
  const std::size_t ra = find(node(a)), rb = find(node(b));
  if (ra != rb) parent_[std::max(ra, rb)] = std::min(ra, rb);
}

std::vector<uint64_t> Forest::sorted_nodes() const {
  std::vector<uint64_t> nodes = seen_;
  std::sort(nodes.begin(), nodes.end());
  return nodes;
}

void Forest::compact_ids() {
  std::sort(fp_ids_.begin(), fp_ids_.end());
  fp_ids_.erase(std::unique(fp_ids_.begin(), fp_ids_.end()), fp_ids_.end());
  compact_at_ = std::max(compact_at_, 2 * fp_ids_.size());
}

void Forest::unite() {
  // Nodes ascending; a component's root is its smallest node, the first of it met in that order.
  std::vector<std::size_t> by_fingerprint(seen_.size());
  std::iota(by_fingerprint.begin(), by_fingerprint.end(), std::size_t{0});
  std::sort(by_fingerprint.begin(), by_fingerprint.end(),
            [&](std::size_t x, std::size_t y) { return seen_[x] < seen_[y]; });
  constexpr std::size_t kNone = SIZE_MAX;
  std::vector<std::size_t> first_of_set(seen_.size(), kNone);
  nodes_.resize(seen_.size());
  root_.resize(seen_.size());
  for (std::size_t i = 0; i < by_fingerprint.size(); ++i) {
    nodes_[i] = seen_[by_fingerprint[i]];
    std::size_t& first = first_of_set[find(by_fingerprint[i])];
    if (first == kNone) first = i;
    root_[i] = first;
  }
  decltype(index_)().swap(index_);
  decltype(seen_)().swap(seen_);
  decltype(parent_)().swap(parent_);

  compact_ids();
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
