// Precision and recall of "Hamming distance <= k" on the sample corpus against its ground truth,
// for k = 0..8 and shingle sizes 1..4, as Markdown. Brute force over all pairs.
//   usage: eval_corpus [CORPUS_DIR]   (default: data/corpus of the source tree)
#include <array>
#include <bit>
#include <cstdio>
#include <iostream>
#include <map>
#include <vector>

#include "bench/corpus.h"
#include "simdex/fingerprint.h"

namespace {

constexpr unsigned max_k = 8;
constexpr unsigned max_shingle = 4;

// hist[d] = number of pairs at Hamming distance d <= max_k.
using Histogram = std::array<std::uint64_t, max_k + 1>;

struct Result {
  Histogram truth{}, other{};
  std::map<std::string, std::vector<unsigned>> by_kind;  // distances of truth pairs per kind
};

Result evaluate(const simdex::bench::Corpus& c, unsigned shingle) {
  simdex::FingerprintOptions o;
  o.shingle_size = shingle;
  simdex::Fingerprinter f(o);
  std::vector<std::uint64_t> fp;
  fp.reserve(c.texts.size());
  for (const auto& t : c.texts) fp.push_back(f.fingerprint(t));
  Result r;
  for (std::size_t a = 0; a < fp.size(); ++a)
    for (std::size_t b = a + 1; b < fp.size(); ++b) {
      const auto d = static_cast<unsigned>(std::popcount(fp[a] ^ fp[b]));
      if (d <= max_k) (c.truth.count({a, b}) ? r.truth : r.other)[d]++;
    }
  for (const auto& [pair, kind] : c.truth_kinds)
    r.by_kind[kind].push_back(static_cast<unsigned>(std::popcount(fp[pair.first] ^ fp[pair.second])));
  return r;
}

std::string percent(std::uint64_t num, std::uint64_t den) {
  if (den == 0) return "–";
  char buf[16];
  std::snprintf(buf, sizeof buf, "%.1f", 100.0 * static_cast<double>(num) / static_cast<double>(den));
  return buf;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    const std::string dir = simdex::bench::corpus_dir(argc > 1 ? argv[1] : "");
    const auto corpus = simdex::bench::load_corpus(dir);
    const std::uint64_t n = corpus.texts.size(), positives = corpus.truth.size();
    std::vector<Result> results;
    for (unsigned w = 1; w <= max_shingle; ++w) results.push_back(evaluate(corpus, w));

    std::cout << "Corpus: " << n << " documents, " << n * (n - 1) / 2 << " pairs, " << positives
              << " of them near-duplicates by the ground truth.\n\n"
              << "Precision / recall (%) of \"Hamming distance <= k\", by shingle size w:\n\n| k |";
    for (unsigned w = 1; w <= max_shingle; ++w) std::cout << " w=" << w << " P | w=" << w << " R |";
    std::cout << "\n|---|";
    for (unsigned w = 1; w <= max_shingle; ++w) std::cout << "---:|---:|";
    std::cout << "\n";
    for (unsigned k = 0; k <= max_k; ++k) {
      std::cout << "| " << k << " |";
      for (const Result& r : results) {
        std::uint64_t tp = 0, fp = 0;
        for (unsigned d = 0; d <= k; ++d) tp += r.truth[d], fp += r.other[d];
        std::cout << " " << percent(tp, tp + fp) << " | " << percent(tp, positives) << " |";
      }
      std::cout << "\n";
    }

    std::cout << "\nRecall (%) by kind of near-duplicate, w=3 (the default):\n\n| kind | pairs |";
    for (unsigned k = 0; k <= max_k; ++k) std::cout << " k=" << k << " |";
    std::cout << "\n|---|---:|";
    for (unsigned k = 0; k <= max_k; ++k) std::cout << "---:|";
    std::cout << "\n";
    for (const auto& [kind, dists] : results[2].by_kind) {
      std::cout << "| " << kind << " | " << dists.size() << " |";
      for (unsigned k = 0; k <= max_k; ++k) {
        std::uint64_t hit = 0;
        for (unsigned d : dists) hit += d <= k;
        std::cout << " " << percent(hit, dists.size()) << " |";
      }
      std::cout << "\n";
    }
  } catch (const std::exception& e) {
    std::cerr << "eval_corpus: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
