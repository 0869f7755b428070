// Loads the sample corpus (data/corpus) for the fingerprint benchmark and the evaluation.
#pragma once

#include <cstdint>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace simdex::bench {

struct Corpus {
  std::vector<std::string> texts;                           // texts[id]
  std::vector<std::string> langs;                           // langs[id] from meta.tsv ("" if absent)
  std::set<std::pair<std::uint64_t, std::uint64_t>> truth;  // near-duplicate pairs, first < second
  std::vector<std::pair<std::pair<std::uint64_t, std::uint64_t>, std::string>> truth_kinds;
};

// The directory holding docs.jsonl.gz, truth.tsv and meta.tsv: `dir` if not empty, else
// $SIMDEX_SOURCE_DIR/data/corpus, else the source tree this was built from.
std::string corpus_dir(const std::string& dir = "");

// Reads the corpus; ids must be 0..N-1. Throws simdex::Error on a malformed file.
Corpus load_corpus(const std::string& dir);

}  // namespace simdex::bench
