// simdex upgrade: a format 1.x, 2.0 or 2.1 index file rewritten as format 2.2 (spec/FORMAT.md §12).
#include <iostream>

#include "cli/commands.h"
#include "cli/output.h"
#include "simdex/builder.h"
#include "simdex/error.h"
#include "simdex/version.h"

namespace simdex::cli {

namespace {
struct UpgradeArgs {
  std::string input, output;
  bool quiet = false;
};

void run_upgrade(const UpgradeArgs& a) {
  if (a.input == "-" || a.output == "-")
    throw Error(errc::usage,
                "upgrade reads and writes files, not stdin or stdout (it replaces a file atomically)");
  const std::string output = a.output.empty() ? a.input : a.output;
  const UpgradeSummary s = upgrade_index(a.input, output);
  if (a.quiet) return;
  const std::string from = std::to_string(s.from_major) + "." + std::to_string(s.from_minor);
  if (s.rewritten)
    std::cerr << "simdex: upgraded " << printable(a.input) << " from format " << from << " to "
              << SIMDEX_FORMAT_VERSION_MAJOR << "." << SIMDEX_FORMAT_VERSION_MINOR
              << (output == a.input ? " in place" : ": " + printable(output)) << " (" << s.file_bytes
              << " bytes, verified)\n";
  else if (output != a.input)
    std::cerr << "simdex: " << printable(a.input) << " is already format " << from << "; copied to "
              << printable(output) << " (verified)\n";
  else
    std::cerr << "simdex: " << printable(a.input) << " is already format " << from << "; nothing to do\n";
}
}  // namespace

void add_upgrade_command(CLI::App& app) {
  auto args = std::make_shared<UpgradeArgs>();
  auto* cmd = app.add_subcommand("upgrade", "Rewrite a format 1.x, 2.0 or 2.1 index file as format 2.2");
  cmd->add_option("input", args->input, "Index file of format 1.x, 2.0 or 2.1 (2.2: nothing to do)")
      ->required();
  cmd->add_option("-o,--output", args->output,
                  "Write the 2.2 file here (default: replace INPUT in place, atomically)");
  cmd->add_flag("-q,--quiet", args->quiet, "No summary on stderr");
  cmd->footer(
      "simdex writes format 2.2 (spec/FORMAT.md): the 1.x layout plus tagged sections, such as the\n"
      "fingerprint settings of an index built with --text (2.0) and a block directory that lets a\n"
      "query find each table's block with one lookup (2.1: faster queries), of at most 2^18 slots a\n"
      "table, which readers keep in memory (2.2: about one page read per table on a cold file). It\n"
      "reads 1.x, 2.0 and 2.1 files as before, so upgrading is optional; 2.0 readers read 2.2 files\n"
      "(they ignore the directory); 1.x readers refuse 2.x files. Such files come from earlier simdex\n"
      "releases (0.1 wrote 1.0) or other writers; `simdex info FILE` shows a file's format, and\n"
      "tests/conformance/good/v1_*.sdx and v2_*.sdx are samples.\n\n"
      "upgrade verifies INPUT in full (like `simdex verify`) and refuses a file that fails, then writes\n"
      "the same sections with a 2.2 header and the block directory made from the block keys (where the\n"
      "file had none, or a 2.1 directory whose slot counts are not the writer's): the result is byte for "
      "byte what\n"
      "`simdex build` writes from the same input. The file is published atomically (temporary file,\n"
      "fsync, rename): a program that has INPUT open keeps reading the old bytes. Do not upgrade the\n"
      "members of an index set (its manifest holds their checksums): `simdex merge SET` rewrites them\n"
      "as one 2.2 member.\n\n"
      "Examples:\n"
      "  simdex upgrade old.sdx -o new.sdx\n"
      "  simdex upgrade docs.sdx             # in place");
  cmd->callback([args] { run_upgrade(*args); });
}

}  // namespace simdex::cli
