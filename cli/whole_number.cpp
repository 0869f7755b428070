#include "cli/whole_number.h"

#include <charconv>
#include <string>

namespace simdex::cli {

CLI::Validator whole_number(std::uint64_t lo, std::uint64_t hi) {
  const std::string range = std::to_string(lo) + " to " + std::to_string(hi);
  return CLI::Validator(
      [lo, hi, range](std::string& value) -> std::string {
        std::uint64_t v = 0;
        const char* end = value.data() + value.size();
        const auto [at, ec] = std::from_chars(value.data(), end, v);
        if (value.empty() || ec == std::errc::invalid_argument || at != end)
          return "'" + value + "' is not a whole number (" + range + ")";
        if (ec == std::errc::result_out_of_range || v < lo || v > hi)
          return value + " is not in the range " + range;
        return {};
      },
      "[" + std::to_string(lo) + " - " + std::to_string(hi) + "]");
}

}  // namespace simdex::cli
