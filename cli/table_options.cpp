#include "cli/table_options.h"

#include "cli/whole_number.h"

namespace simdex::cli {

void add_table_options(CLI::App& cmd, TableArgs& args, TablesOf of, const std::string& scheme_help) {
  const bool index = of == TablesOf::index;
  auto* scheme = cmd.add_option("--scheme", args.scheme, scheme_help)->capture_default_str();
  if (index)
    args.blocks_option =
        cmd.add_option("--blocks", args.blocks, "One-level scheme with M blocks (M > k)")->excludes(scheme);
  args.k_option =
      cmd.add_option("-k,--max-distance", args.k,
                     index
                         ? "Largest Hamming distance queries may ask for (documents: `simdex dedup` uses 7, "
                           "README \"Choosing k for text\"; a larger k gives more tables)"
                         : "k of a new set (default for an existing set: its own; another is refused)")
          ->capture_default_str()
          ->check(whole_number(0, 32));
  args.block_bytes_option =
      cmd.add_option(
             "--block-bytes", args.block_bytes,
             index ? "Block size B in bytes (multiple of 8, 32..1048576)"
                   : "Block size of a new set (default for an existing set: its own; another is refused)")
          ->capture_default_str();
}

void apply_table_options(const TableArgs& a, BuildOptions& options) {
  options.k = a.k;
  options.block_bytes = a.block_bytes;
  if (a.blocks_option && a.blocks_option->count() > 0)  // --blocks 0 too: refused by one_level
    options.scheme = Scheme::one_level(a.blocks, a.k);
  else if (a.scheme != "auto")
    options.scheme = Scheme::named(a.scheme, a.k, 0);
}

}  // namespace simdex::cli
