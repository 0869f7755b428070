// The options of every command that searches an index within k bits (query, join, pairs,
// clusters), registered and checked in one place.
#pragma once

#include <CLI/CLI.hpp>
#include <string>

#include "simdex/index.h"

namespace simdex::cli {

struct SearchArgs {
  std::string index;
  int k = -1;                // -1: the index's k
  unsigned threads = 0;      // 0: all cores
  bool force = false;        // batch commands: no work limit
  bool quiet = false;        // no progress bar
  bool progress = false;     // a progress bar even when stderr is not a terminal
  std::string preload;       // --preload: "", "keys" or "all" (add_preload_option)
  std::string output = "-";  // batch commands: -o, where the results go
  // What Index::open loads before the first query, from --preload.
  OpenOptions open_options() const;
};

// INDEX (positional, required), -k/--max-distance, -q/--quiet, --progress and, with `threads` (the
// batch commands), --threads, --force and -o/--output.
void add_search_options(CLI::App& cmd, SearchArgs& args, bool threads);
// Error(usage) when -o would replace what the command reads: the index or set, the key map beside
// it, or `queries` (join's input). Before any work.
void refuse_output_over_inputs(const SearchArgs& args, const std::string& queries = "");
// --preload[=keys|all]: what Index::open loads before the first query (OpenOptions::preload).
void add_preload_option(CLI::App& cmd, SearchArgs& args);

}  // namespace simdex::cli
