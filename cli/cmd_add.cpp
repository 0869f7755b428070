// simdex add: (fingerprint, id) lines in, a new member of an index set out.
#include <chrono>
#include <iostream>

#include "cli/commands.h"
#include "cli/output.h"
#include "cli/pair_input.h"
#include "cli/set_output.h"
#include "cli/table_options.h"
#include "cli/text_options.h"
#include "simdex/builder.h"
#include "simdex/index.h"
#include "simdex/set.h"

namespace simdex::cli {

namespace {
struct AddArgs : SetWriteArgs {
  std::string input = "-";
  TableArgs tables;
  bool no_merge = false;
  bool text = false;
  TextOptions text_options;
};

void run_add(const AddArgs& a) {
  const auto start = std::chrono::steady_clock::now();
  remove_temporary_files_on_signals();
  SetWriterOptions options = set_writer_options(a);
  options.merge_after_add = !a.no_merge;
  SetWriter set(a.set, options);
  BuildOptions build = options.build;
  // An existing set's k and block size are the defaults; given otherwise, the writer refuses them.
  TableArgs tables = a.tables;
  if (set.exists() && !*tables.k_option) tables.k = set.max_distance();
  if (set.exists() && !*tables.block_bytes_option) tables.block_bytes = set.block_bytes();
  apply_table_options(tables, build);
  if (a.text) {  // the new member records how its texts were fingerprinted, as the set's others do
    build.fingerprint_settings = text_settings(a.text_options);
    if (set.exists()) require_index_settings(Index::open(a.set), a.set, a.text_options);
  }
  build.temp_dir = temp_dir_for(build.temp_dir, a.set);
  IndexBuilder builder(build);
  Progress progress(Progress::wanted(a.quiet));
  // Key maps stay per index file: a set's documents' keys are not kept (only to --key-map FILE).
  for_each_input_pair(a.input, a.text, a.text_options,
                      build.memory_bytes ? build.memory_bytes : default_memory_bytes(), "", progress,
                      [&](uint64_t fp, uint64_t id) { builder.add(fp, id); });
  progress.finish();
  if (builder.pairs_added() == 0 && set.exists()) {
    if (!a.quiet)
      std::cerr << "simdex: " << printable(a.input) << " holds no pairs; " << printable(a.set)
                << " is unchanged\n";
    return;
  }
  const SetChange change = set.add(builder);
  report_set_change(a, "added", change,
                    std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
}
}  // namespace

void add_add_command(CLI::App& app) {
  auto args = std::make_shared<AddArgs>();
  auto* cmd = app.add_subcommand("add", "Add (fingerprint, id) pairs to an index set as a new member");
  cmd->footer(
      "An index set (spec/SET.md) is a small manifest SET naming member index files (SET-G.sdx) and\n"
      "removed ids (SET-G.sdt) beside it. `query`, `join`, `pairs`, `clusters`, `info` and `verify`\n"
      "take a set wherever they take an index, and answer as the one index of its live pairs would.\n"
      "The first add creates the set (k and block size are then fixed for it).\n\n"
      "INPUT has the lines of `simdex build` (FINGERPRINT[<TAB>ID], .gz/.zst, or documents with --text).\n"
      "The new member is published with a new manifest atomically (temp file, fsync, rename): readers keep\n"
      "the snapshot they opened. Then members of similar size are merged (size-tiered, 4 to a tier), so\n"
      "the member count stays logarithmic and a small add never rewrites a large member; --no-merge skips\n"
      "that. One writer at a time: a second waits for SET.lock (or fails with --no-wait).\n\n"
      "Examples: simdex add docs.sdxs day1.tsv\n"
      "          simdex remove docs.sdxs 17 42\n"
      "          simdex merge docs.sdxs");
  add_set_write_options(*cmd, *args);
  cmd->add_option("input", args->input, "Input file, or - for stdin (default)");
  add_table_options(*cmd, args->tables, TablesOf::set_member,
                    "Table scheme of the new member (see `simdex build --help`)");
  cmd->add_flag("--no-merge", args->no_merge, "Do not merge members of similar size after the add");
  cmd->add_flag("--text", args->text, "INPUT holds documents: fingerprint them first");
  add_text_options(*cmd, args->text_options);
  cmd->callback([args] {
    args->text_options.threads = args->threads;
    run_add(*args);
  });
}

}  // namespace simdex::cli
