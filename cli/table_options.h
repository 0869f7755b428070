// The options that shape an index's tables, shared by `simdex build`, `simdex add` and
// `simdex-mpi build`: --scheme, --blocks (not for add), -k, --block-bytes.
#pragma once

#include <CLI/CLI.hpp>
#include <cstdint>
#include <string>

#include "simdex/builder.h"

namespace simdex::cli {

struct TableArgs {
  std::string scheme = "auto";
  unsigned blocks = 0;  // --blocks M: the one-level scheme blocks-M
  CLI::Option* blocks_option = nullptr;
  unsigned k = 3;
  uint32_t block_bytes = BuildOptions{}.block_bytes;
  CLI::Option* k_option = nullptr;  // whether -k and --block-bytes were given (add keeps a set's)
  CLI::Option* block_bytes_option = nullptr;
};

// What the tables are for: a new index (build), or a new member of a set that may exist (add: its k
// and block size are the set's unless given; no --blocks).
enum class TablesOf { index, set_member };

// Adds the options to `cmd`, storing into `args`; `scheme_help` is --scheme's description.
void add_table_options(CLI::App& cmd, TableArgs& args, TablesOf of, const std::string& scheme_help);

// Sets options.k, options.block_bytes and options.scheme from the flags (Scheme::named and
// Scheme::one_level throw Error(usage) for a scheme that does not fit k).
void apply_table_options(const TableArgs& args, BuildOptions& options);

}  // namespace simdex::cli
