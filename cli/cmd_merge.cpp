// simdex merge: every member of an index set compacted into one, removed ids dropped.
#include <chrono>

#include "cli/commands.h"
#include "cli/set_output.h"
#include "simdex/builder.h"
#include "simdex/set.h"

namespace simdex::cli {

void add_merge_command(CLI::App& app) {
  auto args = std::make_shared<SetWriteArgs>();
  auto* cmd = app.add_subcommand("merge", "Compact an index set into one member, dropping removed ids");
  cmd->footer(
      "Reads every member's pairs once, keeps the live ones and writes them as one member within --memory\n"
      "(sorting externally beyond it), then publishes a manifest with that member alone and no tombstones,\n"
      "and removes the old files (readers that have them open keep reading them).\n\n"
      "Example: simdex merge docs.sdxs --memory 2G");
  add_set_write_options(*cmd, *args);
  cmd->callback([args] {
    const auto start = std::chrono::steady_clock::now();
    Progress progress(Progress::wanted(args->quiet, args->progress));
    SetWriter set(args->set, set_writer_options(*args, progress));
    const SetChange change = set.merge();
    progress.finish();
    report_set_change(*args, "merged", change, start);
  });
}

}  // namespace simdex::cli
