#include "cli/search_options.h"

#include <filesystem>

#include "cli/progress.h"
#include "cli/threads_option.h"
#include "cli/whole_number.h"
#include "simdex/keys.h"
#include "writer/atomic_file.h"

namespace simdex::cli {

void add_search_options(CLI::App& cmd, SearchArgs& args, bool threads) {
  cmd.add_option("index", args.index, "Index file, or - to read it from stdin")->required();
  cmd.add_option("-k,--max-distance", args.k, "Hamming distance (default: the index's k; not above it)")
      ->check(whole_number(0, 64));
  add_progress_flags(cmd, args.quiet, args.progress);
  if (threads) {
    add_threads_option(cmd, args.threads);
    cmd.add_flag(
        "--force", args.force,
        "Go on when the index's prefixes would make the work explode (by default refused above about "
        "1.1e12 entry comparisons, some minutes of one core: exit 1)");
    cmd.add_option("-o,--output", args.output,
                   "Write the results here instead of stdout (- is stdout): a file is replaced when the "
                   "command succeeds (temporary file, fsync, rename; a failed run leaves what was there), "
                   "a name ending .gz or .zst is compressed so, a device or FIFO is written as it is");
  }
}

void refuse_output_over_inputs(const SearchArgs& args, const std::string& queries) {
  writer::refuse_input_as_output(args.index, args.output, "-o");  // "-": standard output, as it is open
  if (args.output != "-") writer::refuse_replacing_set(args.output);
  if (args.index != "-") writer::refuse_input_as_output(key_map_path(args.index), args.output, "-o");
  if (!queries.empty()) writer::refuse_input_as_output(queries, args.output, "-o");
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
      ->check(CLI::IsMember({"keys", "all"}))
      ->option_text("[=keys|all]");
}

OpenOptions SearchArgs::open_options() const {
  // `--preload all IDX`: the flag took no value (it takes one only after '='), and "all" became the
  // index; said so, rather than "cannot open all".
  std::error_code ec;
  if (!preload.empty() && (index == "all" || index == "keys") && !std::filesystem::exists(index, ec))
    throw Error(errc::usage, "--preload takes its value after '=' (--preload=" + index + "): '" + index +
                                 "' was read as the index, and there is no such file");
  OpenOptions o;
  if (preload == "keys") o.preload = OpenOptions::Preload::keys;
  if (preload == "all") o.preload = OpenOptions::Preload::all;
  return o;
}

}  // namespace simdex::cli
