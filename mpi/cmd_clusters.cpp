// simdex-mpi clusters: the pairs of the set found over the ranks (pair_scan.h) are united on each
// rank into a partial forest; each rank sends rank 0 (fingerprint, root[, ids]) for every fingerprint
// of its pairs; rank 0 unites those and prints the components. Rank 0's memory is bounded by the
// fingerprints that occur in pairs (docs/SCALE.md has the figure), not by all stored fingerprints.
#include <algorithm>
#include <memory>

#include "cli/batch_output.h"
#include "mpi/commands.h"
#include "mpi/forest.h"
#include "mpi/pair_scan.h"
#include "mpi/records.h"
#include "mpi/result_sink.h"

namespace simdex::mpi {

namespace {
struct ClustersArgs : SpreadArgs {
  std::size_t min_size = 2;
  bool ids = false, sort = false;
  std::string format;  // "": tsv, unless --json
  cli::OutputStyle style;
};

void run_clusters(ClustersArgs a) {
  const World world;
  if (a.index == "-") throw Error(errc::usage, "simdex-mpi reads the set from a file, not from stdin");
  if (!a.output_dir.empty())
    throw Error(errc::usage, "clusters are united on rank 0 and printed there: use -o, not --output-dir");
  if (a.min_size < 2)
    throw Error(errc::usage, "--min-size below 2 prints every stored fingerprint: use `simdex clusters`");
  cli::resolve_format(a.format, a.style, a.ids);
  const cli::ResultFormat format{a.format, a.style, a.ids};
  ResultSink sink(world, a.output, "", "", files_read(a.index));
  ScanOptions scan;
  scan.path = a.index;
  scan.k = a.k;
  scan.threads = a.threads;
  scan.force = a.force;
  scan.with_ids = scan.duplicates = a.ids;  // a fingerprint of several ids is a cluster in ids
  scan.assign = parse_assign(a.assign);
  Forest local;
  scan_pairs(world, scan, [&](const NearPair& p) {
    local.add_edge(p.a, p.b);
    if (!a.ids) return;
    local.add_ids(p.a, p.ids_a);
    local.add_ids(p.b, p.ids_b);
  });
  local.unite();
  std::vector<uint64_t> partial;  // (fingerprint, root, 0, ids, -) for each fingerprint of a pair here
  for (std::size_t i = 0; i < local.nodes().size(); ++i)
    append_record(partial, {local.nodes()[i], local.root(i), 0, local.ids(i), {}});
  local = Forest();
  Forest all;
  world.step([&] {
    world.gather_to_root(partial, [&](std::span<const uint64_t> part) {
      for_each_record(part, [&](const Record& r) {
        all.add_edge(r.key1, r.key2);
        all.add_ids(r.key1, r.ids1);
      });
    });
  });
  std::vector<uint64_t>().swap(partial);
  sink.write(
      {},
      [&](cli::Output& out, std::span<const uint64_t>) {
        if (!world.root()) return;
        all.unite();
        // Components in the order of their smallest fingerprint, members ascending (as `simdex clusters`).
        const auto& nodes = all.nodes();
        std::vector<std::size_t> order(nodes.size());  // nodes by (root, fingerprint): 8 bytes a node
        for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
        std::stable_sort(order.begin(), order.end(),
                         [&](std::size_t x, std::size_t y) { return all.root_index(x) < all.root_index(y); });
        std::vector<uint64_t> values;
        std::vector<std::vector<uint64_t>> sorted;  // --sort only
        for (std::size_t at = 0; at < order.size();) {
          const std::size_t root = all.root_index(order[at]);
          values.clear();
          for (; at < order.size() && all.root_index(order[at]) == root; ++at) {
            const std::size_t i = order[at];
            if (!a.ids) {
              values.push_back(nodes[i]);
              continue;
            }
            const auto ids = all.ids(i);
            values.insert(values.end(), ids.begin(), ids.end());
          }
          if (values.size() < a.min_size) continue;
          if (!a.sort) {
            cli::print_cluster(out, values, format, nullptr);
            continue;
          }
          std::sort(values.begin(), values.end());
          sorted.push_back(values);
        }
        std::sort(sorted.begin(), sorted.end());
        for (const auto& v : sorted) cli::print_cluster(out, v, format, nullptr);
      },
      true);
  sink.publish();
}
}  // namespace

void add_clusters_command(CLI::App& app) {
  auto args = std::make_shared<ClustersArgs>();
  auto* cmd = app.add_subcommand(
      "clusters", "Clusters of near-duplicates of a set spread over the ranks (simdex clusters)");
  cmd->footer(
      std::string(
          "The output is that of `simdex clusters` (see `simdex clusters --help`), clusters in the\n"
          "order of their smallest fingerprint. The pairs are found as `simdex-mpi pairs` finds them;\n"
          "each rank unites its pairs as they come into a partial forest and sends rank 0, for every\n"
          "fingerprint of its pairs, its root (and with --ids its ids); rank 0 unites those. Memory on\n"
          "each rank: about 64 bytes per fingerprint that occurs in a pair (rank 0: 16 more for each\n"
          "rank it occurs on), plus 16 bytes per distinct id with --ids, whatever the number of pairs\n"
          "or of stored fingerprints (docs/SCALE.md).\n"
          "--min-size must be at least 2.\n\n") +
      kSpreadHelp + "\nExample: mpirun -np 4 simdex-mpi clusters docs.sdxs --ids > clusters.txt");
  add_spread_options(*cmd, *args);
  cmd->get_option("--output-dir")->group("");  // hidden: refused below, with the reason
  cmd->add_flag("--ids", args->ids, "Print the clusters' ids instead of their fingerprints");
  cmd->add_option("--min-size", args->min_size, "Smallest cluster printed (default 2)")
      ->check(CLI::Range(1, 1 << 30));
  cli::add_format_options(*cmd, args->format, args->style);
  cmd->add_flag("--sort", args->sort, "Sort members and clusters (holds them all in memory)");
  cmd->callback([args] { run_clusters(*args); });
}

}  // namespace simdex::mpi
