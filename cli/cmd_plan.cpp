// simdex plan: what each scheme would cost for N fingerprints and distance k, before building.
#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "cli/commands.h"
#include "cli/lines.h"
#include "cli/output.h"
#include "cli/progress.h"
#include "cli/whole_number.h"
#include "format/floor_bits.h"
#include "simdex/builder.h"
#include "simdex/error.h"
#include "simdex/scheme.h"

namespace simdex::cli {

namespace {
// The cost model, fit to the single-query p50 latencies and sizes that `scripts/bench` measured
// (bench/RESULTS.md, "Single-query latency", random fingerprints, n = 1e6, 1e7 and 1e8, block size
// 256; section "simdex plan: the cost model" there): a probe of one table costs about 0.5 µs
// (finding and decoding its first block), each further candidate entry sharing the prefix about
// 6 ns; a table takes the floor log2 C(2^64, n)/n bits per entry plus about 0.96 bytes (block keys,
// ranks, padding, and 0.06 for the block directory of format 2.1), and each id 8 bytes.
constexpr double probe_us = 0.5;
constexpr double candidate_us = 0.006;
constexpr double table_overhead_bytes = 0.96;
constexpr double id_bytes = 8;

struct PlanArgs {
  std::string count;
  unsigned k = 3;
  bool json = false;
};

struct Estimate {
  std::string name;
  std::size_t tables = 0;
  unsigned shortest_prefix = 64, longest_prefix = 0;
  double file_bytes = 0, candidates = 0, latency_us = 0;
  bool automatic = false;
};

// "1000000", "1e9", "250M", "2G" (K/M/G/T: powers of 1000).
uint64_t parse_count(const std::string& text) {
  const std::optional<double> value = parse_scaled(text, 1000, false);
  if (!value || !(*value >= 1))
    throw Error(errc::usage, "N " + text + ": expected a count of fingerprints such as 1000000, 1e9 or 250M");
  if (*value > 1e15)
    throw Error(errc::usage, "N " + text + " is above 1e15, the largest count the cost model covers");
  if (*value != std::floor(*value))
    throw Error(errc::usage, "N " + text + ": a count of fingerprints is a whole number");
  return static_cast<uint64_t>(*value);
}

Estimate estimate(const std::string& name, const Scheme& s, uint64_t count) {
  Estimate e;
  e.name = name;
  e.tables = s.tables.size();
  const auto n = static_cast<double>(count);
  for (const TableLayout& t : s.tables) {
    e.shortest_prefix = std::min(e.shortest_prefix, t.prefix_bits);
    e.longest_prefix = std::max(e.longest_prefix, t.prefix_bits);
    e.candidates += n / std::ldexp(1.0, static_cast<int>(t.prefix_bits));
  }
  e.file_bytes =
      n * (static_cast<double>(e.tables) * (format::floor_bits_per_entry(n) / 8 + table_overhead_bytes) +
           id_bytes);
  e.latency_us = static_cast<double>(e.tables) * probe_us + e.candidates * candidate_us;
  return e;
}

uint64_t binomial(unsigned n, unsigned k) {
  uint64_t r = 1;
  for (unsigned i = 1; i <= k; ++i) r = r * (n - k + i) / i;
  return r;
}

// The schemes `simdex build` can make for k, with the names --scheme takes: blocks-M up to 256
// tables (the automatic choice is one of them) and for k = 3 the paper's, three of which are blocks-M.
std::vector<std::pair<std::string, Scheme>> candidates_for(unsigned k) {
  std::vector<std::pair<std::string, Scheme>> out;
  // At k = 0 every blocks-M is one table of the whole fingerprint: one line says it.
  const unsigned last = k == 0 ? 1 : k + 12;
  for (unsigned m = k + 1; m <= 64 && m <= last && binomial(m, k) <= 256; ++m) {
    std::string name = "blocks-" + std::to_string(m);
    if (k == 3 && m >= 4 && m <= 6) name += m == 4 ? "=paper-4" : m == 5 ? "=paper-10" : "=paper-20";
    out.emplace_back(name, Scheme::one_level(m, k));
    if (k == 3 && m == 5) out.emplace_back("paper-16", Scheme::named("paper-16", k, 0));
  }
  return out;
}

void run_plan(const PlanArgs& a) {
  const uint64_t count = parse_count(a.count);
  const Scheme chosen = Scheme::automatic(count, a.k);
  std::vector<Estimate> rows;
  for (const auto& [name, s] : candidates_for(a.k)) {
    rows.push_back(estimate(name, s, count));
    rows.back().automatic = "auto-" + s.name == chosen.name;  // "auto-blocks-4-k3"
  }
  Output out;
  if (a.json) {
    for (const Estimate& e : rows)
      out.print(R"({{"scheme":"{}","k":{},"n":{},"tables":{},"prefix_bits":[{},{}],"file_bytes":{:.0f},)"
                R"("candidates_per_query":{:.4g},"latency_us":{:.3g},"automatic":{}}})"
                "\n",
                e.name, a.k, count, e.tables, e.shortest_prefix, e.longest_prefix, e.file_bytes, e.candidates,
                e.latency_us, e.automatic);
    return out.close();
  }
  out.print("n = {} fingerprints, k = {}: estimates (see `simdex plan --help` for the model)\n\n", count,
            a.k);
  out.print("  {:<18} {:>6} {:>7} {:>11} {:>12} {:>12}\n", "scheme", "tables", "prefix", "file size",
            "candidates", "latency µs");
  for (const Estimate& e : rows) {
    const std::string prefix = e.shortest_prefix == e.longest_prefix
                                   ? std::to_string(e.shortest_prefix)
                                   : fmt::format("{}-{}", e.shortest_prefix, e.longest_prefix);
    out.print("{} {:<18} {:>6} {:>7} {:>11} {:>12.3g} {:>12.3g}\n", e.automatic ? "*" : " ", e.name, e.tables,
              prefix, human_count(e.file_bytes, Progress::Unit::bytes), e.candidates, e.latency_us);
  }
  out.print("\n* the automatic choice (`simdex build -k {}` without --scheme): {}\n", a.k, chosen.name);
  out.close();
}
}  // namespace

void add_plan_command(CLI::App& app) {
  auto args = std::make_shared<PlanArgs>();
  auto* cmd =
      app.add_subcommand("plan", "Estimate file size and query cost of each scheme for N fingerprints");
  cmd->footer(
      "One line per scheme `simdex build` can make for k (the paper's four for k = 3, and blocks-M up to\n"
      "256 tables): its tables, prefix bits, estimated file size, expected candidates per query (entries\n"
      "sharing a table's prefix with the query: n / 2^prefix summed over the tables, for random\n"
      "fingerprints) and single-query latency; * marks the scheme `simdex build` picks by itself.\n\n"
      "The model: latency = tables x 0.5 us + candidates x 6 ns; file = n x (tables x (floor + 0.96 B)\n"
      "+ 8 B of id), floor = log2 C(2^64, n)/n bits. The constants are fit to the single-query p50\n"
      "latencies and sizes measured by scripts/bench (bench/compare_bench: random fingerprints, n = 1e6,\n"
      "1e7, 1e8, block size 256, one 2-core AMD EPYC; bench/RESULTS.md, \"simdex plan: the cost model\").\n"
      "Expect them within about a factor of 2 on a warm page cache; clustered data has more candidates,\n"
      "and an index larger than memory pays disk reads per probe.\n\n"
      "Examples:\n"
      "  simdex plan 1e9 -k 3\n"
      "  simdex plan 250M -k 6 --json");
  cmd->add_option("n", args->count, "Number of distinct fingerprints (1000000, 1e9, 250M)")->required();
  cmd->add_option("-k,--max-distance", args->k, "Largest Hamming distance queries will ask for")
      ->capture_default_str()
      ->check(whole_number(0, 32));
  cmd->add_flag("--json", args->json, "JSON Lines, one object per scheme");
  cmd->callback([args] { run_plan(*args); });
}

}  // namespace simdex::cli
