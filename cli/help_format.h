// How simdex and simdex-mpi print --help: CLI11's format, with a flag that takes an optional
// value shown as `--preload[=VALUE]` rather than CLI11's `--preload{keys}`.
#pragma once

#include <CLI/CLI.hpp>

namespace simdex::cli {

// Sets the formatter of `app` (and of the subcommands added to it afterwards).
void use_help_format(CLI::App& app);

}  // namespace simdex::cli
