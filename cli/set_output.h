// What `add`, `remove` and `merge` report on stderr, and the options they share.
#pragma once

#include <CLI/CLI.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "cli/progress.h"
#include "simdex/set.h"

namespace simdex::cli {

struct SetWriteArgs {
  std::string set;
  bool no_wait = false;
  bool quiet = false;
  bool progress = false;
  std::string memory;   // "": default_memory_bytes()
  std::string tmp_dir;  // "": the set's directory
  unsigned threads = 0;
};

// SET, --no-wait, --memory, --tmp-dir, --threads, -q, --progress.
void add_set_write_options(CLI::App& cmd, SetWriteArgs& args);
// The writer options those give; merges report their stages to `progress`, which must outlive the
// writer.
SetWriterOptions set_writer_options(const SetWriteArgs& args, Progress& progress);
// "simdex: SET: generation G, M members; wrote N bytes (...); removed ..." unless quiet.
// `start`: when the command began (the summary says how long it took).
void report_set_change(const SetWriteArgs& args, const std::string& what, const SetChange& change,
                       std::chrono::steady_clock::time_point start);
// "simdex: A, B hold no WHAT; SET is unchanged" unless quiet: an add or remove whose inputs held
// nothing (a day without documents, or without removals).
void report_set_unchanged(const SetWriteArgs& args, const std::vector<std::string>& inputs,
                          std::string_view what);

}  // namespace simdex::cli
