#include "cli/search_options.h"

namespace simdex::cli {

void add_search_options(CLI::App& cmd, SearchArgs& args, bool threads) {
  cmd.add_option("index", args.index, "Index file, or - to read it from stdin")->required();
  cmd.add_option("-k,--max-distance", args.k, "Hamming distance (default: the index's k; not above it)")
      ->check(CLI::Range(0, 64));
  cmd.add_flag("-q,--quiet", args.quiet, "No progress bar (shown only when stderr is a terminal)");
  if (threads) {
    cmd.add_option("--threads", args.threads, "Threads (default: all cores)")->check(CLI::Range(1, 4096));
    cmd.add_flag(
        "--force", args.force,
        "Go on when the index's prefixes would make the work explode (by default refused above about "
        "1.4e11 entry comparisons, exit 1)");
  }
}

}  // namespace simdex::cli
