// The parts of simdex-mpi that unite what ranks found, against brute force: records with equal keys
// made one with their ids united (merge_records), and the components of a forest built from edges
// (Forest) against a search of the graph.
#include <doctest/doctest.h>

#include <algorithm>
#include <map>
#include <random>
#include <set>

#include "mpi/forest.h"
#include "mpi/records.h"

namespace simdex::mpi {

TEST_CASE("merge_records: one record per key, ids united, sorted by key") {
  std::mt19937_64 rng(7);
  for (int round = 0; round < 20; ++round) {
    std::vector<uint64_t> words;
    std::map<std::pair<uint64_t, uint64_t>, std::pair<std::set<uint64_t>, std::set<uint64_t>>> want;
    const int n = static_cast<int>(rng() % 200);
    for (int i = 0; i < n; ++i) {
      const uint64_t k1 = rng() % 10, k2 = rng() % 10;  // few keys: many repeats
      std::vector<uint64_t> ids1, ids2;
      for (uint64_t id = 0; id < 30; ++id) {
        if (rng() % 5 == 0) ids1.push_back(id);
        if (rng() % 7 == 0) ids2.push_back(id);
      }
      append_record(words, {k1, k2, static_cast<unsigned>(k1 % 4), ids1, ids2});
      auto& w = want[{k1, k2}];
      w.first.insert(ids1.begin(), ids1.end());
      w.second.insert(ids2.begin(), ids2.end());
    }
    std::vector<std::pair<uint64_t, uint64_t>> keys;
    for_each_record(merge_records(words), [&](const Record& r) {
      keys.emplace_back(r.key1, r.key2);
      const auto& w = want.at({r.key1, r.key2});
      CHECK(std::vector<uint64_t>(r.ids1.begin(), r.ids1.end()) ==
            std::vector<uint64_t>(w.first.begin(), w.first.end()));
      CHECK(std::vector<uint64_t>(r.ids2.begin(), r.ids2.end()) ==
            std::vector<uint64_t>(w.second.begin(), w.second.end()));
      CHECK(r.distance == r.key1 % 4);
    });
    CHECK(keys.size() == want.size());
    CHECK(std::is_sorted(keys.begin(), keys.end()));
  }
}

TEST_CASE("for_each_record refuses words that are not whole records") {
  std::vector<uint64_t> words;
  append_record(words, {1, 2, 3, std::vector<uint64_t>{4, 5}, {}});
  words.pop_back();
  CHECK_THROWS(for_each_record(words, [](const Record&) {}));
}

TEST_CASE("Forest: components as a graph search finds them, roots the smallest fingerprint") {
  std::mt19937_64 rng(11);
  for (int round = 0; round < 20; ++round) {
    const uint64_t nodes = 5 + rng() % 60;
    std::map<uint64_t, std::set<uint64_t>> graph;
    Forest forest;
    for (uint64_t e = rng() % (2 * nodes); e > 0; --e) {
      const uint64_t a = 1000 + rng() % nodes, b = 1000 + rng() % nodes;
      forest.add_edge(a, b);
      graph[a].insert(b);
      graph[b].insert(a);
      forest.add_ids(a, std::vector<uint64_t>{a * 2});
    }
    forest.unite();
    REQUIRE(forest.nodes().size() == graph.size());
    for (std::size_t i = 0; i < forest.nodes().size(); ++i) {
      std::set<uint64_t> seen{forest.nodes()[i]};  // its component, searched
      std::vector<uint64_t> todo{forest.nodes()[i]};
      while (!todo.empty()) {
        const uint64_t x = todo.back();
        todo.pop_back();
        for (uint64_t y : graph[x])
          if (seen.insert(y).second) todo.push_back(y);
      }
      CHECK(forest.root(i) == *seen.begin());
      const auto ids = forest.ids(i);
      CHECK(ids.size() <= 1);
      if (!ids.empty()) CHECK(ids[0] == forest.nodes()[i] * 2);
    }
  }
}

}  // namespace simdex::mpi
