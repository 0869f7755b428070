#include "cli/empty_values.h"

#include <string_view>

#include "simdex/error.h"

namespace simdex::cli {

void refuse_empty_values(CLI::App& app) {
  for (CLI::App* sub : app.get_subcommands({})) refuse_empty_values(*sub);
  const CLI::Validator non_empty(
      [](std::string& value) {
        return value.empty() ? std::string("an empty value names nothing (an unset shell variable?)")
                             : std::string();
      },
      "");
  for (CLI::Option* option : app.get_options())
    if (option->get_expected_max() > 0) option->check(non_empty);  // flags get "true" or their default
}

void refuse_empty_assignments(int argc, const char* const* argv) {
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    if (arg == "--") return;
    if (arg.size() > 3 && arg.starts_with("--") && arg.ends_with("=") && arg.find('=') == arg.size() - 1)
      throw Error(errc::usage,
                  std::string(arg) + ": an empty value names nothing (give one, or leave the option out)");
  }
}

}  // namespace simdex::cli
