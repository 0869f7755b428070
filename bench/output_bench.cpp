// The CLI's output (cli::Output) writing to /dev/null, for bench/RESULTS.md ("CLI output: a line of
// millions of ids"):
//   IdLine/N      one line of N ids (`query` of a fingerprint with N ids, a cluster of N documents)
//   ShortLines/N  N lines of 4 ids (`pairs --ids`, `join`): the common case, for comparison
// Counters: items_per_second (ids).
#include <benchmark/benchmark.h>

#include <cstdint>
#include <vector>

#include "cli/output.h"

namespace {

std::vector<std::uint64_t> ids(std::size_t n) {
  std::vector<std::uint64_t> v(n);
  for (std::size_t i = 0; i < n; ++i) v[i] = 1000000 + i * 7919;  // 7-10 digits, as document ids
  return v;
}

void IdLine(benchmark::State& state) {
  const std::vector<std::uint64_t> line = ids(static_cast<std::size_t>(state.range(0)));
  for (auto _ : state) {
    simdex::cli::Output out("/dev/null");
    out.print("{}\t", 7);
    out.append_list(line);
    out.print("\n");
    out.close();
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * line.size()));
}
BENCHMARK(IdLine)->Arg(10'000)->Arg(100'000)->Arg(1'000'000)->Arg(3'000'000)->Unit(benchmark::kMillisecond);

void ShortLines(benchmark::State& state) {
  const std::vector<std::uint64_t> line = ids(4);
  const auto lines = static_cast<std::size_t>(state.range(0));
  for (auto _ : state) {
    simdex::cli::Output out("/dev/null");
    for (std::size_t i = 0; i < lines; ++i) {
      out.print("{}\t", i);
      out.append_list(line);
      out.print("\n");
    }
    out.close();
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * lines * line.size()));
}
BENCHMARK(ShortLines)->Arg(250'000)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
