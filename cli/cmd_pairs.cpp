// simdex pairs: every pair of stored fingerprints within k bits, streamed as found.
#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "cli/batch_output.h"
#include "cli/commands.h"
#include "cli/index_input.h"
#include "cli/keys_option.h"
#include "cli/output.h"
#include "cli/output_style.h"
#include "cli/progress.h"
#include "cli/search_options.h"
#include "simdex/batch.h"

namespace simdex::cli {

namespace {
struct PairsArgs : SearchArgs {
  bool ids = false, sort = false, stats = false;
  std::string format;  // "": tsv, unless --json
  KeysArg keys;
  OutputStyle style;
};

void run_pairs(PairsArgs a) {
  const std::optional<MappedKeyMap> keys = open_keys(a.keys, a.index);  // --keys prints the ids' keys
  const bool ids = a.ids || keys;
  resolve_format(a.format, a.style, a.ids, keys.has_value());
  const ResultFormat f{a.format, a.style, ids};
  refuse_output_over_inputs(a);
  Output out(a.output);
  const IndexInput opened(a.index);
  const Index& index = *opened;
  Progress progress(Progress::wanted(a.quiet, a.progress));
  BatchOptions o;
  o.k = a.k;
  o.threads = a.threads;
  if (a.force) o.work_limit = UINT64_MAX;
  o.with_ids = ids;
  o.duplicates = ids;
  o.progress = batch_progress(progress, "pairs", "blocks");
  std::vector<NearPair> all;  // --sort only
  const BatchStats stats = find_pairs(index, o, [&](std::span<const NearPair> batch) {
    if (a.sort) {
      all.insert(all.end(), batch.begin(), batch.end());
    } else {
      for (const NearPair& p : batch) print_pair(out, p, f, keys ? &*keys : nullptr);
    }
  });
  progress.finish();
  std::sort(all.begin(), all.end(),
            [](const NearPair& x, const NearPair& y) { return x.a != y.a ? x.a < y.a : x.b < y.b; });
  for (const NearPair& p : all) print_pair(out, p, f, keys ? &*keys : nullptr);
  out.close();
  if (a.stats) {
    print_table_stats(stats, "pairs");
    fmt::print(stderr, "{} pairs\n", stats.results);
  }
}
}  // namespace

void add_pairs_command(CLI::App& app) {
  auto args = std::make_shared<PairsArgs>();
  auto* cmd = app.add_subcommand("pairs", "Find every pair of stored fingerprints within k bits (all cores)");
  cmd->footer(
      "Each pair of distinct stored fingerprints within k bits comes once, smaller fingerprint first:\n"
      "  A<TAB>B<TAB>DISTANCE                         (decimal)\n"
      "  A<TAB>B<TAB>DISTANCE<TAB>IDS_A<TAB>IDS_B     with --ids (ids comma-separated); then a\n"
      "                                               fingerprint with several ids also gives a line\n"
      "                                               F<TAB>F<TAB>0<TAB>IDS<TAB>IDS (its documents are\n"
      "                                               exact duplicates)\n"
      "  {\"a\":A,\"b\":B,\"distance\":D[,\"ids_a\":[...],\"ids_b\":[...]]}   with --json (or --format "
      "json);\n"
      "                                               with --keys \"keys_a\", \"keys_b\" (a key as a JSON\n"
      "                                               string, an id without one as a number)\n"
      "  [A, B]                                       with --format seomoz (as simhash-find-all)\n"
      "--hex prints A and B as 0x and 16 hex digits (strings in JSON).\n"
      "Pairs stream out as threads find them, in an order that may change from run to run with more\n"
      "than one thread (the set does not; --threads 1 gives one order); --sort orders them by (A, B)\n"
      "but holds them all in memory first.\n"
      "Per table, the entries sharing the table's prefix are compared two by two; a pair is reported\n"
      "by the first table that groups it, so each block is decoded once and no pair twice.\n\n"
      "Examples:\n"
      "  simdex pairs docs.sdx -k 2 > pairs.tsv\n"
      "  simdex pairs docs.sdx --ids --sort --threads 4\n"
      "  simdex pairs docs.sdx --format seomoz");
  add_search_options(*cmd, *args, true);
  cmd->add_flag("--ids", args->ids,
                "Print the ids of both fingerprints, and groups of ids sharing one fingerprint");
  add_keys_option(*cmd, args->keys);
  add_format_options(*cmd, args->format, args->style);
  cmd->add_flag("--sort", args->sort, "Sort the output by (A, B) (holds every pair in memory)");
  cmd->add_flag("--stats", args->stats, "Print blocks decoded and pairs per table on stderr");
  cmd->callback([args] { run_pairs(*args); });
}

}  // namespace simdex::cli
