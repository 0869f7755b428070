#include "mpi/commands.h"
#include "simdex/error.h"

namespace simdex::mpi {

void add_spread_options(CLI::App& cmd, SpreadArgs& args) {
  cli::add_search_options(cmd, args, true);
  // No progress over the ranks (yet): a --progress that printed nothing would mislead.
  cmd.remove_option(cmd.get_option("--progress"));
  // simdex-mpi reads files only: every rank opens the set at its path.
  cmd.get_option("index")->description("The index set's manifest (or one index file); not stdin");
  cmd.get_option("--threads")
      ->description("Threads per rank (0: the machine's cores / its ranks on it; at most 4096)");
  cmd.add_option("--assign", args.assign,
                 "Which rank opens which member: size (largest first to the least loaded rank) or index "
                 "(member i on rank i mod P, where `simdex-mpi build` on P ranks wrote it)")
      ->capture_default_str();
  auto* out = cmd.get_option("--output")
                  ->description(
                      "Write the results to this file on rank 0 (published by rename when the job "
                      "succeeds) instead of standard output");
  cmd.add_option("--output-dir", args.output_dir,
                 "One file per rank, DIR/part-RRRRR.EXT (created; published by rename when the job succeeds; "
                 "refused when DIR holds the parts of an earlier job)")
      ->excludes(out);
}

const char* const kSpreadHelp =
    "SET is an index set (spec/SET.md) or one index file (then one rank does the work). Every rank reads\n"
    "the manifest at SET's path and opens only the members it is given (--assign): members may lie on a\n"
    "shared file system, or each machine may hold at the same path the manifest, the tombstones and the\n"
    "members its ranks open (docs/SCALE.md says how to place them). A rank that fails stops the job:\n"
    "its error names the rank and the file, the exit status is 1 (2 for a usage error), and -o or\n"
    "--output-dir files (join, pairs) are not published.\n";

}  // namespace simdex::mpi
