// simdex build: (fingerprint, id) lines in, an index file out.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <optional>
#include <string>
#include <vector>

#include "cli/commands.h"
#include "cli/keys_option.h"
#include "cli/lines.h"
#include "cli/output.h"
#include "cli/pair_input.h"
#include "cli/progress.h"
#include "cli/table_options.h"
#include "cli/text_options.h"
#include "cli/threads_option.h"
#include "format/system_error.h"
#include "io/fd_io.h"
#include "io/input_stream.h"
#include "simdex/builder.h"
#include "simdex/error.h"
#include "writer/run_file.h"
#include "writer/temp_files.h"

namespace simdex::cli {

namespace {
struct BuildArgs : TableArgs {
  std::string output;
  std::string input = "-";
  unsigned threads = 0;
  std::string memory;   // "" : default_memory_bytes()
  std::string tmp_dir;  // "" : the output's directory
  std::string direct_io = "auto";
  bool progress = false, quiet = false;
  bool text = false;
  TextOptions text_options;
};

// `-o -`: the writer places the header last (it seeks), so the index is built in a directory of its
// own in the temporary directory (writer::ScratchDirectory: nothing is left however the command ends),
// then copied to stdout by stream_to_stdout(), which removes it.
void refuse_terminal_stdout() {
  if (::isatty(STDOUT_FILENO))
    throw Error(errc::usage,
                "-o - writes a binary index to stdout, which is a terminal: redirect it or name a file");
}

void stream_to_stdout(const std::string& staged) {
  const int fd = ::open(staged.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) throw system_error("cannot open " + staged);
  ::unlink(staged.c_str());
  Output out;
  std::vector<char> chunk(1 << 20);
  for (;;) {
    const ssize_t got = io::read_some(fd, chunk.data(), chunk.size());
    if (got < 0) {
      const int error = errno;
      ::close(fd);
      throw Error(errc::io, "reading " + staged + ": " + std::strerror(error), error);
    }
    if (got == 0) break;
    out.buffer().append(chunk.data(), chunk.data() + got);
    out.flush();
  }
  ::close(fd);
  out.close();
}

void run_build(const BuildArgs& a) {
  const auto start = std::chrono::steady_clock::now();
  const bool to_stdout = a.output == "-";
  std::error_code ec;
  if (!a.text && a.input != "-" && std::filesystem::is_directory(a.input, ec))
    throw Error(errc::usage, "input " + printable(a.input) +
                                 " is a directory: build reads fingerprint lines from a file (with --text, "
                                 "it fingerprints the directory's documents)");
  writer::refuse_input_as_output(a.input, a.output);
  if (!a.text && !a.text_options.paths_file.empty())
    throw Error(errc::usage,
                "--key-map is for --text (documents); fingerprint lines bring their key map beside "
                "them, INPUT.keys.tsv, which build carries beside the index");
  Progress progress(Progress::wanted(a.quiet, a.progress));
  BuildOptions options;
  apply_table_options(a, options);
  options.threads = a.threads;
  if (!a.memory.empty()) options.memory_bytes = parse_size(a.memory, "--memory");
  options.output_writes = output_writes_named(a.direct_io);
  // -o -: the file is read right back for the copy, from the cache.
  if (to_stdout && options.output_writes == BuildOptions::OutputWrites::automatic)
    options.output_writes = BuildOptions::OutputWrites::cached;
  writer::require_target_directory(a.output);  // before the work: the message names the output
  writer::refuse_replacing_set(a.output);
  options.temp_dir = temp_dir_for(a.tmp_dir, to_stdout ? "-" : a.output);
  if (options.temp_dir.empty()) options.temp_dir = writer::system_temp_directory();
  std::optional<writer::ScratchDirectory> staging;
  if (to_stdout) {
    refuse_terminal_stdout();
    staging.emplace(options.temp_dir, ".simdex-stdout-");
  }
  const std::string target = to_stdout ? staging->path() + "/index.sdx" : a.output;
  std::optional<writer::UnpublishedFile> staged;  // a signal before the copy opens it removes it
  if (to_stdout) staged.emplace(target);
  options.progress = [&](std::string_view stage, uint64_t done, uint64_t total) {
    progress.update(stage, done, total);
  };
  if (a.text) options.fingerprint_settings = text_settings(a.text_options);  // spec/FORMAT.md §5.2
  TextOptions text_options = a.text_options;
  text_options.note_unmapped_keys = to_stdout;  // -o -: keys go to no map unless --key-map names one
  IndexBuilder builder(options);

  PendingKeyMap keys = for_each_input_pair(
      a.input, a.text, text_options, options.memory_bytes ? options.memory_bytes : default_memory_bytes(),
      to_stdout ? "" : a.output, progress, [&](uint64_t fp, uint64_t id) { builder.add(fp, id); });
  if (!a.text && !to_stdout) keys = carried_key_map(a.input, a.output);  // checked before the index is
  const BuildSummary s = builder.write(target);
  if (to_stdout) stream_to_stdout(target);
  keys.commit();  // the index first: a failed build leaves the old index with its old map
  progress.finish();
  if (!a.quiet) {
    std::cerr << fmt::format("simdex: wrote {}: {} fingerprint{}, {} id{}, {} table{} ({}), {} bytes in {}",
                             to_stdout ? "standard output" : a.output, s.fingerprint_count,
                             plural_s(s.fingerprint_count), s.id_count, plural_s(s.id_count), s.table_count,
                             plural_s(s.table_count), s.scheme_name, s.file_bytes, elapsed_text(start));
    if (s.temp_files > 0)
      std::cerr << " (external sort: " << s.temp_files << " temporary files, at most " << s.temp_peak_bytes
                << " bytes at once)";
    std::cerr << "\n";
  }
}
// The schemes `--scheme` accepts, one a line, from the library's catalogue.
std::string schemes_help() {
  std::string out;
  for (const auto& [name, what] : scheme_catalogue())
    out += "  " + name + std::string(name.size() < 10 ? 10 - name.size() : 1, ' ') + what + "\n";
  return out;
}

}  // namespace

void add_build_command(CLI::App& app) {
  auto args = std::make_shared<BuildArgs>();
  auto* cmd = app.add_subcommand("build", "Build an index file from fingerprint lines");
  cmd->footer(
      "Input: one pair a line, `FINGERPRINT` or `FINGERPRINT<TAB>ID` (all lines alike). FINGERPRINT is\n"
      "decimal or 0x-hex (up to 16 digits), ID decimal; without ids a line's id is its 0-based line\n"
      "number. Blank lines are skipped, as is a UTF-8 byte order mark first in the file. .gz and .zst\n"
      "inputs are read transparently. A malformed line stops the build with its line number, and\n"
      "nothing is written at the output path.\n\n"
      "Schemes (choose the tables; more tables: longer probe prefixes, faster queries, bigger file):\n" +
      schemes_help() +
      "  (--blocks M is blocks-M)\n\n"
      "Output is written to a temporary file beside INDEX, fsynced and renamed over it: readers of an\n"
      "old INDEX are unaffected. The same pairs always give the same bytes. INDEX must be absent or a\n"
      "regular file (a symbolic link is refused, not followed) and not the input.\n"
      "A line of INPUT holds at most 4096 bytes (blank lines too); a longer one is an error naming it.\n"
      "With -o - the index goes to stdout (not a terminal): the writer puts the header last, so the\n"
      "file is built in --tmp-dir (default $TMPDIR, else /tmp), unlinked once written, and copied;\n"
      "that directory needs room for one index. `simdex info -`, `verify -`, `query -` read it back.\n\n"
      "With --text, INPUT holds documents (JSON Lines, one text a line, or a directory) and simdex\n"
      "fingerprints them as spec/FINGERPRINT.md says (the flags of the Text group apply).\n\n"
      "Examples: simdex build -o docs.sdx --scheme paper-10 fingerprints.tsv.gz\n"
      "          simdex build -o corpus.sdx -k 6 --text data/corpus/docs.jsonl.gz");
  cmd->add_option("-o,--output", args->output,
                  "Index file to write, or - for stdout (built in --tmp-dir, then copied: see below)")
      ->required();
  cmd->add_option("input", args->input, "Input file, or - for stdin (default)");
  add_table_options(*cmd, *args, TablesOf::index, "Table scheme (see the list below)");
  add_threads_option(*cmd, args->threads);
  cmd->add_option(
      "--memory", args->memory,
      "Memory bound, e.g. 512M or 2G (default: a quarter of physical memory); beyond it the sort spills "
      "sorted runs to temporary files. The output is the same whatever the bound");
  cmd->add_option(
      "--tmp-dir", args->tmp_dir,
      "Directory for the sort's temporary files (default: the output's directory; with -o -: $TMPDIR, "
      "else /tmp)");
  cmd->add_option("--direct-io", args->direct_io,
                  "How the tables and ids go to the file. on: straight to the disk (O_DIRECT): less CPU, "
                  "the page cache left to other files, the file then read from the disk by its first "
                  "queries (for a file shipped elsewhere); off: through the page cache, which then holds "
                  "the file for queries here; auto: on once the file would take a quarter of the "
                  "machine's memory, off with -o -. The bytes are the same")
      ->check(CLI::IsMember({"auto", "on", "off"}))
      ->default_str("auto");
  cmd->add_flag(
      "--text", args->text,
      "INPUT holds documents, not fingerprints: fingerprint them first (see `simdex fingerprint --help`)");
  add_text_options(*cmd, args->text_options);
  add_progress_flags(*cmd, args->quiet, args->progress, "No progress, no summary");
  cmd->callback([args] {
    args->text_options.threads = args->threads;
    run_build(*args);
  });
}

}  // namespace simdex::cli
