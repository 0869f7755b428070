// simdex-mpi pairs: every near pair of a set whose members are spread over the ranks (pair_scan.h),
// sent to the rank its (a, b) hashes to, united there (each pair once, ids over all members), printed.
#include <algorithm>
#include <memory>

#include "cli/batch_output.h"
#include "mpi/commands.h"
#include "mpi/pair_scan.h"
#include "mpi/records.h"
#include "mpi/result_sink.h"

namespace simdex::mpi {

namespace {
struct PairsArgs : SpreadArgs {
  bool ids = false, sort = false;
  std::string format;  // "": tsv, unless --json
  cli::OutputStyle style;
};

void run_pairs(PairsArgs a) {
  const World world;
  if (a.index == "-") throw Error(errc::usage, "simdex-mpi reads the set from a file, not from stdin");
  cli::resolve_format(a.format, a.style, a.ids);
  const cli::ResultFormat format{a.format, a.style, a.ids};
  ResultSink sink(world, a.output, a.output_dir, a.format == "json" ? "jsonl" : "tsv", files_read(a.index));
  ScanOptions scan;
  scan.path = a.index;
  scan.k = a.k;
  scan.threads = a.threads;
  scan.force = a.force;
  scan.with_ids = scan.duplicates = a.ids;
  scan.assign = parse_assign(a.assign);
  std::vector<std::vector<uint64_t>> out(static_cast<std::size_t>(world.size()));
  scan_pairs(world, scan, [&](const NearPair& p) {
    append_record(out[static_cast<std::size_t>(home_rank(p.a, p.b, world.size()))], p.a, p.b, p.distance,
                  p.ids_a, p.ids_b);
  });
  const std::vector<uint64_t> mine = merge_records(world.exchange(out));
  sink.write(
      mine,
      [&](cli::Output& o, std::span<const uint64_t> words) {
        std::vector<uint64_t> group;  // a duplicates line: the ids of f, united
        auto print = [&](const Record& r) {
          NearPair p{r.key1, r.key2, r.distance, id_view(r.ids1), id_view(r.ids2)};
          if (r.key1 == r.key2) {  // (f, f, 0): f's ids, found on several ranks; a line when there are two
            group.clear();
            std::set_union(r.ids1.begin(), r.ids1.end(), r.ids2.begin(), r.ids2.end(),
                           std::back_inserter(group));
            if (group.size() < 2) return;
            p.ids_a = p.ids_b = id_view(group);
          }
          cli::print_pair(o, p, format, nullptr);
        };
        if (!a.sort) return for_each_record(words, print);
        for_each_record(merge_records(words), print);  // every rank's part, sorted by (A, B)
      },
      a.sort);
  sink.publish();
}
}  // namespace

void add_pairs_command(CLI::App& app) {
  auto args = std::make_shared<PairsArgs>();
  auto* cmd = app.add_subcommand("pairs", "Every near pair of a set spread over the ranks (simdex pairs)");
  cmd->footer(
      std::string("The output is that of `simdex pairs` (see `simdex pairs --help`): each pair of distinct\n"
                  "stored fingerprints within k bits once, with --ids the union of their ids over all\n"
                  "members. Each rank finds the pairs within its members; the pairs across members of two\n"
                  "ranks are joins: the owner of each member broadcasts its fingerprints, the other ranks\n"
                  "join them against their members before it. Each pair then goes to one rank, which\n"
                  "unites what several ranks found (memory: its share of the pairs found). Lines come in\n"
                  "no fixed order across ranks (--sort: by (A, B), all held on rank 0).\n\n") +
      kSpreadHelp + "\nExample: mpirun -np 4 simdex-mpi pairs docs.sdxs -k 2 > pairs.tsv");
  add_spread_options(*cmd, *args);
  cmd->add_flag("--ids", args->ids,
                "Print the ids of both fingerprints, and groups of ids sharing one fingerprint");
  cli::add_format_options(*cmd, args->format, args->style);
  cmd->add_flag("--sort", args->sort, "Sort the output by (A, B) (holds every pair on rank 0)");
  cmd->callback([args] { run_pairs(*args); });
}

}  // namespace simdex::mpi
