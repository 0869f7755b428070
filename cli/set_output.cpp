#include "cli/set_output.h"

#include <iostream>

#include "cli/lines.h"
#include "cli/output.h"
#include "cli/progress.h"
#include "cli/threads_option.h"

namespace simdex::cli {

void add_set_write_options(CLI::App& cmd, SetWriteArgs& args) {
  cmd.add_option("set", args.set, "The set's manifest (e.g. docs.sdxs); its files live beside it")
      ->required();
  cmd.add_flag("--no-wait", args.no_wait,
               "When another writer holds the set's lock (SET.lock), fail at once instead of waiting");
  cmd.add_option("--memory", args.memory,
                 "Memory bound of merges, e.g. 512M or 2G (default: a quarter of physical memory)");
  cmd.add_option("--tmp-dir", args.tmp_dir,
                 "Directory for temporary sort files (default: the set's directory)");
  add_threads_option(cmd, args.threads);
  add_progress_flags(cmd, args.quiet, args.progress, "No progress, no summary");
}

SetWriterOptions set_writer_options(const SetWriteArgs& args, Progress& progress) {
  SetWriterOptions o;
  if (progress.enabled())
    o.build.progress = [&progress](std::string_view stage, uint64_t done, uint64_t total) {
      progress.update(stage, done, total);
    };
  o.wait_for_lock = !args.no_wait;
  if (!args.memory.empty()) o.build.memory_bytes = parse_size(args.memory, "--memory");
  o.build.temp_dir = args.tmp_dir;
  o.build.threads = args.threads;
  return o;
}

void report_set_change(const SetWriteArgs& args, const std::string& what, const SetChange& c,
                       std::chrono::steady_clock::time_point start) {
  if (args.quiet) return;
  std::cerr << "simdex: " << printable(args.set) << ": " << what << ", generation " << c.generation << ", "
            << c.members << " member" << plural_s(c.members) << "; wrote " << c.bytes_written << " bytes in "
            << c.written.size() << " file" << plural_s(c.written.size());
  if (c.merged_entries) std::cerr << ", merged " << c.merged_entries << " entries";
  if (!c.removed.empty()) std::cerr << ", removed " << c.removed.size() << " old file(s)";
  std::cerr << " in " << elapsed_text(start) << "\n";
}

void report_set_unchanged(const SetWriteArgs& args, const std::vector<std::string>& inputs,
                          std::string_view what) {
  if (args.quiet) return;
  std::string named;
  for (const std::string& input : inputs) named += (named.empty() ? "" : ", ") + printable(input);
  std::cerr << "simdex: " << named << (inputs.size() > 1 ? " hold no " : " holds no ") << what << "; "
            << printable(args.set) << " is unchanged\n";
}

}  // namespace simdex::cli
