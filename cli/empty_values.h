// An empty value names nothing: `--report ""` or `--index "$UNSET"` would otherwise run as if the
// option were absent (no report written, exit 0), and `--preload=` as `--preload`.
#pragma once

#include <CLI/CLI.hpp>

namespace simdex::cli {

// Every option and positional of `app` and its subcommands that takes a value refuses "" (a usage
// error naming it). Call once every command is registered.
void refuse_empty_values(CLI::App& app);

// Error(usage) for an argument `--NAME=` (before any `--`): CLI11 gives a flag so written its default.
void refuse_empty_assignments(int argc, const char* const* argv);

}  // namespace simdex::cli
