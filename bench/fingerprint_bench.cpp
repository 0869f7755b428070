// Fingerprinting throughput on one core, in bytes of UTF-8 text per second, on the sample corpus:
// all of it, and each language alone (English is ASCII and takes the normalization shortcut;
// Spanish goes through ICU; Chinese also through the character-pair segmentation).
//   usage: fingerprint_bench [benchmark flags]   (corpus: $SIMDEX_SOURCE_DIR/data/corpus)
#include <benchmark/benchmark.h>

#include <string>
#include <vector>

#include "bench/corpus.h"
#include "simdex/fingerprint.h"

namespace {

const simdex::bench::Corpus& corpus() {
  static const simdex::bench::Corpus c = simdex::bench::load_corpus(simdex::bench::corpus_dir());
  return c;
}

void fingerprint_texts(benchmark::State& state, const std::string& lang) {
  std::vector<const std::string*> texts;
  std::int64_t bytes = 0;
  for (std::size_t i = 0; i < corpus().texts.size(); ++i)
    if (lang == "all" || corpus().langs[i] == lang) {
      texts.push_back(&corpus().texts[i]);
      bytes += static_cast<std::int64_t>(corpus().texts[i].size());
    }
  simdex::FingerprintOptions o;
  o.shingle_size = static_cast<unsigned>(state.range(0));
  simdex::Fingerprinter f(o);
  for (auto _ : state)
    for (const std::string* t : texts) benchmark::DoNotOptimize(f.fingerprint(*t));
  state.SetBytesProcessed(state.iterations() * bytes);
  state.counters["docs"] = static_cast<double>(texts.size());
}

}  // namespace

BENCHMARK_CAPTURE(fingerprint_texts, all, std::string("all"))->Arg(3)->Arg(1)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(fingerprint_texts, en, std::string("en"))->Arg(3)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(fingerprint_texts, es, std::string("es"))->Arg(3)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(fingerprint_texts, zh, std::string("zh"))->Arg(3)->Unit(benchmark::kMillisecond);

BENCHMARK_MAIN();
