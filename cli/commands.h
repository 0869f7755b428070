// Each `simdex` subcommand lives in its own cmd_*.cpp and registers itself on the app through one of
// these functions. A command's callback throws simdex::Error on failure; main() turns that into a
// message on stderr and the documented exit code.
#pragma once

#include <CLI/CLI.hpp>

namespace simdex::cli {

void add_build_command(CLI::App& app);
void add_query_command(CLI::App& app);
void add_verify_command(CLI::App& app);
void add_info_command(CLI::App& app);
void add_fingerprint_command(CLI::App& app);  // cli/cmd_fingerprint.cpp
void add_join_command(CLI::App& app);         // cli/cmd_join.cpp
void add_pairs_command(CLI::App& app);        // cli/cmd_pairs.cpp
void add_clusters_command(CLI::App& app);     // cli/cmd_clusters.cpp
void add_dedup_command(CLI::App& app);        // cli/cmd_dedup.cpp
void add_add_command(CLI::App& app);          // cli/cmd_add.cpp: index sets
void add_remove_command(CLI::App& app);       // cli/cmd_remove.cpp
void add_merge_command(CLI::App& app);        // cli/cmd_merge.cpp
void add_plan_command(CLI::App& app);         // cli/cmd_plan.cpp
void add_upgrade_command(CLI::App& app);      // cli/cmd_upgrade.cpp: format 1.x, 2.0, 2.1 -> 2.2
void add_help_command(CLI::App& app);         // cli/cmd_help.cpp: last, it lists the others

}  // namespace simdex::cli
