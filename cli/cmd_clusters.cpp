// simdex clusters: connected components of the "within k" graph of the stored fingerprints.
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
#include "cli/whole_number.h"
#include "simdex/batch.h"

namespace simdex::cli {

namespace {
struct ClustersArgs : SearchArgs {
  std::size_t min_size = 2;
  bool ids = false, sort = false;
  std::string format;  // "": tsv, unless --json
  KeysArg keys;
  OutputStyle style;
};

void run_clusters(ClustersArgs a) {
  const std::optional<MappedKeyMap> keys = open_keys(a.keys, a.index);
  const bool ids = a.ids || keys;  // --keys prints the ids' keys
  resolve_format(a.format, a.style, a.ids, keys.has_value());
  const ResultFormat f{a.format, a.style, a.ids};
  const MappedKeyMap* key_map = keys ? &*keys : nullptr;
  refuse_output_over_inputs(a);
  Output out(a.output);
  const IndexInput opened(a.index);
  const Index& index = *opened;
  Progress progress(Progress::wanted(a.quiet, a.progress));
  BatchOptions o;
  o.k = a.k;
  o.threads = a.threads;
  if (a.force) o.work_limit = UINT64_MAX;
  o.progress = batch_progress(progress, "clusters", "blocks");
  ClusterOptions c;
  c.min_size = a.min_size;
  c.size_in_ids = ids;
  std::vector<uint64_t> values;
  std::vector<std::vector<uint64_t>> all;  // --sort only
  find_clusters(index, o, c, [&](std::span<const ClusterMember> members) {
    progress.finish();  // the scan is over once clusters come
    values.clear();
    for (const ClusterMember& m : members) {
      if (!ids)
        values.push_back(m.fingerprint);
      else
        for (uint64_t id : m.ids) values.push_back(id);
    }
    if (!a.sort) return print_cluster(out, values, f, key_map);
    std::sort(values.begin(), values.end());
    all.push_back(values);
  });
  progress.finish();
  std::sort(all.begin(), all.end());
  for (const auto& v : all) print_cluster(out, v, f, key_map);
  out.close();
}
}  // namespace

void add_clusters_command(CLI::App& app) {
  auto args = std::make_shared<ClustersArgs>();
  auto* cmd = app.add_subcommand(
      "clusters", "Group the stored fingerprints into clusters of near-duplicates (all cores)");
  cmd->footer(
      "A cluster is a connected component of the graph whose edges join fingerprints within k bits\n"
      "(so two members may be farther apart than k through others). One cluster a line:\n"
      "  FP,FP,...                              (decimal) its fingerprints\n"
      "  ID,ID,...                              with --ids: the ids of its fingerprints\n"
      "  KEY,KEY,...                            with --keys: their keys (',' in a key as \\x2c)\n"
      "  {\"size\":N,\"fingerprints\":[...]}        with --json or --format json "
      "({\"size\":N,\"ids\":[...]}\n"
      "                                         with --ids, {\"size\":N,\"keys\":[...]} with --keys: a key\n"
      "                                         as a JSON string, an id without one as a number)\n"
      "  [FP, FP, ...]                          with --format seomoz (as simhash-find-clusters)\n"
      "--hex prints fingerprints as 0x and 16 hex digits (strings in JSON); ids stay decimal.\n"
      "Clusters smaller than --min-size (default 2; counted in fingerprints, or in ids with --ids,\n"
      "so that with --ids a fingerprint shared by several documents is a cluster) are left out.\n"
      "The order does not depend on the thread count: clusters by their first fingerprint, members\n"
      "ascending, ids grouped by fingerprint; --sort sorts ids too and orders clusters by their\n"
      "sorted values.\n"
      "Memory: about 40 bytes per stored fingerprint (union-find over all of them), not per pair.\n\n"
      "Examples:\n"
      "  simdex clusters docs.sdx -k 3 --min-size 3\n"
      "  simdex clusters docs.sdx --ids > duplicate-documents.txt\n"
      "  simdex clusters docs.sdx --keys                # keys from docs.sdx.keys.tsv (an index built\n"
      "                                                 # from documents with string keys or paths)\n"
      "  simdex clusters docs.sdx --format seomoz");
  add_search_options(*cmd, *args, true);
  cmd->add_flag("--ids", args->ids, "Print the clusters' ids instead of their fingerprints");
  add_keys_option(*cmd, args->keys);
  cmd->add_option("--min-size", args->min_size, "Smallest cluster printed (default 2)")
      ->check(whole_number(1, 1 << 30));
  add_format_options(*cmd, args->format, args->style);
  cmd->add_flag("--sort", args->sort, "Sort members and clusters (holds them all in memory)");
  cmd->callback([args] { run_clusters(*args); });
}

}  // namespace simdex::cli
