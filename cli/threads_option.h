// --threads N, as every command that runs on several threads takes it: 0 (the default) for all
// cores, at most format::max_threads. One rule, so that a script passing one $THREADS to every
// command is refused or accepted alike by all of them.
#pragma once

#include <CLI/CLI.hpp>
#include <string>

namespace simdex::cli {

CLI::Option* add_threads_option(CLI::App& cmd, unsigned& threads,
                                const std::string& description = "Worker threads (0: all cores)");

}  // namespace simdex::cli
