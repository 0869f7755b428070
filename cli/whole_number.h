// The check of an option that takes a whole number in a range (-k, --threads, --shingle, ...),
// whose message says which it is not: "abc" is not a number, 99 is not in the range.
#pragma once

#include <CLI/CLI.hpp>
#include <cstdint>

namespace simdex::cli {

CLI::Validator whole_number(std::uint64_t lo, std::uint64_t hi);

}  // namespace simdex::cli
