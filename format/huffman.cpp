#include "format/huffman.h"

#include <algorithm>
#include <numeric>
#include <vector>

namespace simdex::format {

namespace {

// Plain Huffman code lengths; ties broken by symbol so the result is deterministic.
CodeLengths huffman_lengths(const std::array<uint64_t, kSymbols>& frequency) {
  struct Node {
    uint64_t weight;
    unsigned order;  // tie-breaker: leaves by symbol, internal nodes after all leaves, by creation
    int left, right;
  };
  std::vector<Node> nodes;
  for (unsigned s = 0; s < kSymbols; ++s)
    if (frequency[s] > 0) nodes.push_back({frequency[s], s, -1, -1});
  CodeLengths lengths{};
  if (nodes.empty()) return lengths;
  if (nodes.size() == 1) {
    lengths[nodes[0].order] = 1;
    return lengths;
  }
  const std::size_t leaves = nodes.size();
  auto heavier = [&](int a, int b) {
    if (nodes[a].weight != nodes[b].weight) return nodes[a].weight > nodes[b].weight;
    return nodes[a].order > nodes[b].order;
  };
  std::vector<int> heap(leaves);
  std::iota(heap.begin(), heap.end(), 0);
  std::make_heap(heap.begin(), heap.end(), heavier);
  unsigned next_order = kSymbols;
  while (heap.size() > 1) {
    std::pop_heap(heap.begin(), heap.end(), heavier);
    int a = heap.back();
    heap.pop_back();
    std::pop_heap(heap.begin(), heap.end(), heavier);
    int b = heap.back();
    heap.pop_back();
    nodes.push_back({nodes[a].weight + nodes[b].weight, next_order++, a, b});
    heap.push_back(static_cast<int>(nodes.size() - 1));
    std::push_heap(heap.begin(), heap.end(), heavier);
  }
  // Depth of every leaf, walking from the root.
  std::vector<std::pair<int, unsigned>> stack{{heap[0], 0}};
  while (!stack.empty()) {
    auto [n, depth] = stack.back();
    stack.pop_back();
    if (nodes[n].left < 0) {
      lengths[nodes[n].order] = static_cast<uint8_t>(std::min(depth, 255u));
    } else {
      stack.push_back({nodes[n].left, depth + 1});
      stack.push_back({nodes[n].right, depth + 1});
    }
  }
  return lengths;
}

}  // namespace

CodeLengths code_lengths_from_frequencies(const std::array<uint64_t, kSymbols>& frequency) {
  // Halving the frequencies (keeping them non-zero) flattens the tree until it fits the limit:
  // simple, deterministic, and costs next to nothing since only rare symbols are affected.
  std::array<uint64_t, kSymbols> f = frequency;
  for (;;) {
    CodeLengths lengths = huffman_lengths(f);
    if (*std::max_element(lengths.begin(), lengths.end()) <= kMaxCodeLength) return lengths;
    for (auto& x : f)
      if (x > 0) x = (x + 1) / 2;
  }
}

std::string check_code_lengths(const CodeLengths& lengths, uint64_t entry_count) {
  unsigned used = 0;
  uint64_t kraft = 0;  // sum of 2^(kMaxCodeLength - length)
  for (unsigned s = 0; s < kSymbols; ++s) {
    const unsigned len = lengths[s];
    if (len == 0) continue;
    if (len > kMaxCodeLength)
      return "code length " + std::to_string(len) + " of h=" + std::to_string(s) + " exceeds " +
             std::to_string(kMaxCodeLength);
    ++used;
    kraft += uint64_t{1} << (kMaxCodeLength - len);
  }
  if (used == 0)
    return entry_count <= 1 ? ""
                            : "no code lengths for a table of " + std::to_string(entry_count) + " entries";
  if (entry_count <= 1) return "code lengths present for a table of fewer than 2 entries";
  if (used == 1) {
    for (unsigned s = 0; s < kSymbols; ++s)
      if (lengths[s] != 0 && lengths[s] != 1) return "a single-symbol code must have length 1";
    return "";
  }
  const uint64_t full = uint64_t{1} << kMaxCodeLength;
  if (kraft > full) return "code lengths over-subscribe the code space (Kraft sum > 1)";
  if (kraft < full) return "code lengths under-subscribe the code space (Kraft sum < 1)";
  return "";
}

CanonicalCode::CanonicalCode(const CodeLengths& lengths) : length(lengths) {
  std::array<unsigned, kMaxCodeLength + 1> count{};  // count[0] stays 0: unused symbols get no code
  for (auto len : lengths)
    if (len > 0 && len <= kMaxCodeLength) ++count[len];
  std::array<unsigned, kMaxCodeLength + 1> next{};
  unsigned c = 0;
  for (unsigned len = 1; len <= kMaxCodeLength; ++len) {
    c = (c + count[len - 1]) << 1;
    next[len] = c;
  }
  for (unsigned s = 0; s < kSymbols; ++s)
    if (lengths[s] > 0 && lengths[s] <= kMaxCodeLength) code[s] = static_cast<uint16_t>(next[lengths[s]]++);
}

DecodeTable::DecodeTable(const CodeLengths& lengths) {
  CanonicalCode canonical(lengths);
  for (unsigned s = 0; s < kSymbols; ++s) {
    const unsigned len = lengths[s];
    if (len == 0 || len > kMaxCodeLength) continue;
    const unsigned shift = kIndexBits - len;
    const uint32_t first = uint32_t{canonical.code[s]} << shift;
    if (first + (uint32_t{1} << shift) > table_.size()) continue;  // only over-subscribed lengths
    const uint16_t entry = static_cast<uint16_t>(((len + s) << 8) | s);
    for (uint32_t i = 0; i < (uint32_t{1} << shift); ++i) table_[first + i] = entry;
    if (len <= kShortBits)
      for (uint32_t i = first >> (kIndexBits - kShortBits);
           i < (first + (uint32_t{1} << shift)) >> (kIndexBits - kShortBits); ++i)
        short_[i] = entry;
  }
}

}  // namespace simdex::format
