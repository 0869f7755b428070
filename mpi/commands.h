// The subcommands of simdex-mpi, each in its own cmd_*.cpp, registered on the app as the simdex
// command's are (cli/commands.h). Every rank parses the same arguments and runs the same callback.
#pragma once

#include <CLI/CLI.hpp>
#include <string>

#include "cli/search_options.h"
#include "mpi/members.h"

namespace simdex::mpi {

void add_build_command(CLI::App& app);     // mpi/cmd_build.cpp
void add_join_command(CLI::App& app);      // mpi/cmd_join.cpp
void add_pairs_command(CLI::App& app);     // mpi/cmd_pairs.cpp
void add_clusters_command(CLI::App& app);  // mpi/cmd_clusters.cpp

// What join, pairs and clusters share beyond the CLI's search options: where members go and where
// the results go.
struct SpreadArgs : cli::SearchArgs {
  std::string assign = "size";
  // (the base's `output`, -o: rank 0's single output, "-" standard output)
  std::string output_dir;  // one file per rank instead
};
// The options of SpreadArgs (the CLI's search options included).
void add_spread_options(CLI::App& cmd, SpreadArgs& args);
// Footer text on placing members and on the outputs, shared by the commands' help.
extern const char* const kSpreadHelp;

}  // namespace simdex::mpi
