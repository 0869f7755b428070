#include "cli/search_options.h"

#include "cli/progress.h"
#include "cli/threads_option.h"

namespace simdex::cli {

void add_search_options(CLI::App& cmd, SearchArgs& args, bool threads) {
  cmd.add_option("index", args.index, "Index file, or - to read it from stdin")->required();
  cmd.add_option("-k,--max-distance", args.k, "Hamming distance (default: the index's k; not above it)")
      ->check(CLI::Range(0, 64));
  add_progress_flags(cmd, args.quiet, args.progress);
  if (threads) {
    add_threads_option(cmd, args.threads);
    cmd.add_flag(
        "--force", args.force,
        "Go on when the index's prefixes would make the work explode (by default refused above about "
        "1.1e12 entry comparisons, some minutes of one core: exit 1)");
  }
}

void add_preload_option(CLI::App& cmd, SearchArgs& args) {
  // A flag with an optional =VALUE, so that it never takes the INDEX argument as its value.
  cmd.add_flag(
         "--preload{keys}", args.preload,
         "Load the index into memory before the first query, so that the first queries are as fast "
         "as later ones: --preload or --preload=keys what a probe reads to find its block (each table's "
         "block keys and block directory, about 4% of the file), --preload=all the whole file (what is not "
         "cached read in 2 MiB pages where the system allows, which makes later probes faster). Without it, "
         "open costs the same for any file size and each page is read when first "
         "needed")
      ->check(CLI::IsMember({"keys", "all"}));
}

OpenOptions SearchArgs::open_options() const {
  OpenOptions o;
  if (preload == "keys") o.preload = OpenOptions::Preload::keys;
  if (preload == "all") o.preload = OpenOptions::Preload::all;
  return o;
}

}  // namespace simdex::cli
