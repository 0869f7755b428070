#include "cli/threads_option.h"

#include "cli/whole_number.h"
#include "format/thread_count.h"

namespace simdex::cli {

CLI::Option* add_threads_option(CLI::App& cmd, unsigned& threads, const std::string& description) {
  return cmd
      .add_option("--threads", threads, description + "; at most " + std::to_string(format::max_threads))
      ->check(whole_number(0, format::max_threads))
      ->capture_default_str();
}

}  // namespace simdex::cli
