#include "cli/help_format.h"

#include <memory>
#include <string>

namespace simdex::cli {

namespace {
class HelpFormatter : public CLI::Formatter {
 public:
  // CLI11 names a flag with a default value `--name{value}`; its values and their meaning are in
  // the option's own text (`[=keys|all]`, its description).
  std::string make_option_name(const CLI::Option* opt, bool is_positional) const override {
    std::string name = CLI::Formatter::make_option_name(opt, is_positional);
    for (std::size_t open = name.find('{'); open != std::string::npos; open = name.find('{', open)) {
      const std::size_t close = name.find('}', open);
      if (close == std::string::npos) break;
      name.erase(open, close - open + 1);
    }
    return name;
  }
};
}  // namespace

void use_help_format(CLI::App& app) { app.formatter(std::make_shared<HelpFormatter>()); }

}  // namespace simdex::cli
