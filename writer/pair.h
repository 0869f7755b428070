// A (key, id) pair of the builder: key is a fingerprint (or its table-0 permutation).
#pragma once

#include <cstdint>

namespace simdex::writer {

struct Pair {
  uint64_t key, id;
  friend bool operator==(const Pair&, const Pair&) = default;
  friend bool operator<(const Pair& a, const Pair& b) { return a.key != b.key ? a.key < b.key : a.id < b.id; }
};

}  // namespace simdex::writer
