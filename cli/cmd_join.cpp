// simdex join: a set of queries (fingerprint lines or --text documents) against an index, all at once.
#include <algorithm>
#include <memory>
#include <string>
#include <tuple>
#include <vector>

#include "cli/commands.h"
#include "cli/lines.h"
#include "cli/output.h"
#include "cli/search_options.h"
#include "cli/progress.h"
#include "cli/text_options.h"
#include "io/input_stream.h"
#include "simdex/batch.h"

namespace simdex::cli {

namespace {
struct JoinArgs : SearchArgs {
  std::string queries = "-";
  bool json = false, sort = false, stats = false, text = false;
  TextOptions text_options;
};

void print_hit(Output& out, const JoinHit& h, bool json) {
  auto& b = out.buffer();
  if (json)
    fmt::format_to(std::back_inserter(b), R"({{"query_id":{},"query":{},"fingerprint":{},"distance":{},"ids":[)",
                   h.query_id, h.query_fingerprint, h.fingerprint, h.distance);
  else
    fmt::format_to(std::back_inserter(b), "{}\t{}\t{}\t{}\t", h.query_id, h.query_fingerprint, h.fingerprint, h.distance);
  bool first = true;
  for (uint64_t id : h.ids) {
    if (!first) b.push_back(',');
    fmt::format_to(std::back_inserter(b), "{}", id);
    first = false;
  }
  out.print("{}\n", json ? "]}" : "");
}

std::vector<Query> read_queries(const JoinArgs& a) {
  std::vector<Query> queries;
  if (a.text) {
    for_each_text_fingerprint(a.queries, a.text_options, "", [&](uint64_t id, uint64_t fp) { queries.push_back({fp, id}); });
    return queries;
  }
  io::InputStream in(a.queries);
  PairReader reader(in.name());
  std::string line;
  while (std::getline(in.stream(), line))
    if (auto pair = reader.parse(line)) queries.push_back({pair->first, pair->second});
  return queries;
}

void run_join(const JoinArgs& a) {
  const Index index = Index::open(a.index);
  search_k(a, index);  // refuse a k above the index's before reading a possibly long query input
  const std::vector<Query> queries = read_queries(a);
  Progress progress(Progress::stderr_is_terminal());
  BatchOptions o;
  o.k = a.k;
  o.threads = a.threads;
  if (a.force) o.work_limit = UINT64_MAX;
  o.with_ids = true;
  o.progress = [&](uint64_t done, uint64_t total) { progress.update("join: queries x tables", done, total); };
  Output out;
  std::vector<JoinHit> all;  // --sort only
  const BatchStats stats = join(index, queries, o, [&](std::span<const JoinHit> batch) {
    if (a.sort) {
      all.insert(all.end(), batch.begin(), batch.end());
    } else {
      for (const JoinHit& h : batch) print_hit(out, h, a.json);
    }
  });
  progress.finish();
  // The order of `simdex query`: queries in input order, each one's hits by (distance, fingerprint).
  std::sort(all.begin(), all.end(), [](const JoinHit& x, const JoinHit& y) {
    return std::tie(x.query, x.distance, x.fingerprint) < std::tie(y.query, y.distance, y.fingerprint);
  });
  for (const JoinHit& h : all) print_hit(out, h, a.json);
  out.flush();
  if (a.stats) {
    for (std::size_t t = 0; t < stats.tables.size(); ++t)
      fmt::print(stderr, "table {}: {} of {} blocks decoded, {} hits first found here\n", t,
                 stats.tables[t].blocks_decoded, stats.tables[t].blocks, stats.tables[t].results);
    fmt::print(stderr, "{} queries, {} hits\n", queries.size(), stats.results);
  }
}
}  // namespace

void add_join_command(CLI::App& app) {
  auto args = std::make_shared<JoinArgs>();
  auto* cmd = app.add_subcommand("join", "Find every stored fingerprint within k bits of each query of a set (all cores)");
  cmd->footer(
      "QUERIES holds lines FINGERPRINT or FINGERPRINT<TAB>ID (decimal or 0x-hex; without ids a line's\n"
      "0-based number is its id; .gz and .zst are read as such), or with --text documents as for\n"
      "`simdex fingerprint`. Default: stdin. Output, one line per (query, stored fingerprint) pair:\n"
      "  QUERY_ID<TAB>QUERY_FP<TAB>FINGERPRINT<TAB>DISTANCE<TAB>ID[,ID...]      (decimal)\n"
      "or with --json: {\"query_id\":I,\"query\":Q,\"fingerprint\":F,\"distance\":D,\"ids\":[...]}\n"
      "Hits stream out in an order that depends on the thread count (the set does not); --sort\n"
      "prints them as `simdex query` would (queries in input order, then distance, fingerprint) but\n"
      "holds them all in memory first. A query with no hit prints nothing; a repeated query is\n"
      "answered each time.\n"
      "Per table the queries are permuted, sorted and merged with the table, so each block of the\n"
      "index is decoded at most once per table (--stats shows how many were).\n\n"
      "Examples:\n"
      "  simdex join docs.sdx new.tsv > hits.tsv\n"
      "  simdex join --text docs.sdx new-docs.jsonl --sort --json");
  add_search_options(*cmd, *args, true);
  cmd->add_option("queries", args->queries, "Query input (default: stdin)");
  cmd->add_flag("--json", args->json, "JSON Lines output");
  cmd->add_flag("--sort", args->sort, "Sort the output (holds every hit in memory)");
  cmd->add_flag("--stats", args->stats, "Print blocks decoded and hits per table on stderr");
  cmd->add_flag("--text", args->text, "Queries are documents instead of fingerprints");
  add_text_options(*cmd, args->text_options);
  cmd->callback([args] { run_join(*args); });
}

}  // namespace simdex::cli
