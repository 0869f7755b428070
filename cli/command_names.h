// The first argument of `simdex` and `simdex-mpi` names a command: a typo is told as one, with the
// nearest command's name, rather than as a missing command.
#pragma once

#include <CLI/CLI.hpp>
#include <string>

namespace simdex::cli {

// Error(usage) when `word` names no command of `app`: "no command 'bulid' (did you mean build?); the
// commands are: ...".
void require_command(const CLI::App& app, const std::string& word);

// Throws CLI::CallForHelp when the app's own --help (-h) comes before its --version: the first of the
// two asked is the one answered, as GNU tools do (CLI11 answers --version wherever it stands).
// Anything else is left to CLI11 (`simdex -h build` is the help of build); arguments after the
// command's name are the command's and are not looked at.
void answer_first_of_help_and_version(int argc, const char* const* argv);

// After a parse that left arguments over: "unknown option --shingles (did you mean --shingle?)" for
// each left-over word that looks like an option, or "" when none does (then CLI11's message says it).
std::string unknown_options(const CLI::App& app);

// What a failed parse prints (--help and --version on `out`, errors on `err`, made printable: they
// quote arguments) and its exit code: 0 for --help/--version, else 2.
int report_parse_error(CLI::App& app, const CLI::ParseError& e, std::ostream& out, std::ostream& err);

}  // namespace simdex::cli
