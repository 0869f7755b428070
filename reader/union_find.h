// Union-find that several threads may update at once without a lock. A root only ever changes by a
// compare-and-swap from itself to a smaller index, so every parent is smaller than its child: no
// cycle can form, and a component's root is its smallest member.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>

namespace simdex::reader {

class ConcurrentUnionFind {
 public:
  explicit ConcurrentUnionFind(uint64_t n) : parent_(std::make_unique<std::atomic<uint64_t>[]>(n)), n_(n) {
    for (uint64_t i = 0; i < n; ++i) parent_[i].store(i, std::memory_order_relaxed);
  }
  uint64_t size() const { return n_; }

  uint64_t find(uint64_t x) {
    for (;;) {
      const uint64_t p = parent_[x].load(std::memory_order_acquire);
      if (p == x) return x;
      const uint64_t g = parent_[p].load(std::memory_order_acquire);
      // Path halving; losing the race only leaves a longer path, never a wrong one (g is an ancestor).
      uint64_t expected = p;
      if (g != p) parent_[x].compare_exchange_weak(expected, g, std::memory_order_acq_rel);
      x = g;
    }
  }

  void unite(uint64_t a, uint64_t b) {
    for (;;) {
      a = find(a);
      b = find(b);
      if (a == b) return;
      if (a < b) std::swap(a, b);  // link the larger root under the smaller
      uint64_t expected = a;
      if (parent_[a].compare_exchange_strong(expected, b, std::memory_order_acq_rel)) return;
    }
  }

 private:
  std::unique_ptr<std::atomic<uint64_t>[]> parent_;
  uint64_t n_;
};

}  // namespace simdex::reader
