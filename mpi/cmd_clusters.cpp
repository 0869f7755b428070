// simdex-mpi clusters: the pairs of the set found over the ranks (pair_scan.h) are united on each
// rank into a partial forest; each rank sends rank 0 (fingerprint, root) for every fingerprint of
// its pairs; rank 0 unites those and prints the components. With --ids, rank 0 then sends every rank
// the fingerprints of the forest, and each reads their ids once from its members (not from the
// pairs: a fingerprint of 75,000 documents in 43,000 pairs would bring them 43,000 times). Rank 0's
// memory is bounded by the fingerprints that occur in pairs (docs/SCALE.md has the figure), not by
// all stored fingerprints.
#include <algorithm>
#include <memory>
#include <optional>

#include "cli/batch_output.h"
#include "cli/whole_number.h"
#include "mpi/commands.h"
#include "mpi/forest.h"
#include "mpi/members.h"
#include "mpi/pair_scan.h"
#include "mpi/records.h"
#include "mpi/result_sink.h"

namespace simdex::mpi {

namespace {
// Rank 0's forest gets the ids of each of its fingerprints from every rank whose members hold it.
void add_member_ids(const World& world, const std::optional<Index>& own, Forest& all) {
  std::vector<uint64_t> nodes;
  world.step([&] {
    if (world.root()) nodes = all.sorted_nodes();
  });
  world.broadcast(nodes, 0);
  std::vector<uint64_t> found;  // (fingerprint, 0, 0, ids, -) for each of them held here
  world.step([&] {
    if (!own) return;
    std::size_t at = 0;  // where `nodes` reaches the last fingerprint: members' ascending order walks on
    uint64_t last = 0;
    for_each_live_fingerprint(*own, [&](uint64_t fp, const IdList& ids) {
      if (fp < last)
        at = static_cast<std::size_t>(std::lower_bound(nodes.begin(), nodes.end(), fp) - nodes.begin());
      last = fp;
      while (at < nodes.size() && nodes[at] < fp) ++at;
      if (at < nodes.size() && nodes[at] == fp) append_record(found, fp, 0, 0, ids, {});
    });
  });
  std::vector<uint64_t>().swap(nodes);
  world.step([&] {
    world.gather_to_root(found, [&](std::span<const uint64_t> part) {
      for_each_record(part, [&](const Record& r) { all.add_ids(r.key1, r.ids1); });
    });
  });
}

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
  cli::resolve_format(a.format, a.style, a.ids);
  const cli::ResultFormat format{a.format, a.style, a.ids};
  ResultSink sink(world, a.output, "", "", files_read(a.index));
  ScanOptions scan;
  scan.path = a.index;
  scan.k = a.k;
  scan.threads = a.threads;
  scan.force = a.force;
  scan.duplicates = a.ids;  // a fingerprint of several ids is a cluster in ids: (f, f, 0) makes it a node
  scan.assign = parse_assign(a.assign);
  Forest local;
  const std::optional<Index> own =
      scan_pairs(world, scan, [&](const NearPair& p) { local.add_edge(p.a, p.b); });
  local.unite();
  std::vector<uint64_t> partial;  // (fingerprint, root, 0, -, -) for each fingerprint of a pair here
  for (std::size_t i = 0; i < local.nodes().size(); ++i)
    append_record(partial, {local.nodes()[i], local.root(i), 0, {}, {}});
  local = Forest();
  Forest all;
  world.step([&] {
    world.gather_to_root(partial, [&](std::span<const uint64_t> part) {
      for_each_record(part, [&](const Record& r) { all.add_edge(r.key1, r.key2); });
    });
  });
  std::vector<uint64_t>().swap(partial);
  if (a.ids) add_member_ids(world, own, all);
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
          "fingerprint of its pairs, its root; rank 0 unites those. With --ids, every rank then reads\n"
          "the ids of those fingerprints from its members, once each. Memory on each rank: about 64\n"
          "bytes per fingerprint that occurs in a pair (rank 0: 16 more for each rank it occurs on;\n"
          "with --ids every rank 8 more, and rank 0 16 bytes per distinct id), whatever the number of\n"
          "pairs or of stored fingerprints (docs/SCALE.md).\n"
          "--min-size must be at least 2.\n\n") +
      kSpreadHelp + "\nExample: mpirun -np 4 simdex-mpi clusters docs.sdxs --ids > clusters.txt");
  add_spread_options(*cmd, *args);
  auto* dir = cmd->get_option("--output-dir");
  dir->group("");  // hidden: refused below, with the reason; so -o's help names no option it excludes
  dir->remove_excludes(cmd->get_option("--output"));
  cmd->get_option("--output")->remove_excludes(dir);
  cmd->add_flag("--ids", args->ids, "Print the clusters' ids instead of their fingerprints");
  cmd->add_option("--min-size", args->min_size, "Smallest cluster printed (default 2)")
      ->check(CLI::Validator(
          [](std::string& value) -> std::string {
            if (value == "0" || value == "1")
              return "--min-size below 2 prints every stored fingerprint: use `simdex clusters`";
            return cli::whole_number(2, 1 << 30)(value);
          },
          "[2 - 1073741824]"));
  cli::add_format_options(*cmd, args->format, args->style);
  cmd->add_flag("--sort", args->sort, "Sort members and clusters (holds them all in memory)");
  cmd->callback([args] { run_clusters(*args); });
}

}  // namespace simdex::mpi
