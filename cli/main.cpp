// simdex: near-duplicate detection over 64-bit simhash fingerprints.
// Exit codes: 0 success; 1 failure (bad input, unreadable or corrupt index, verify found problems);
// 2 usage error (unknown option, bad value, k above the index's k).
#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <string>

#include "cli/command_names.h"
#include "cli/commands.h"
#include "cli/empty_values.h"
#include "cli/help_format.h"
#include "cli/output.h"
#include "format/standard_output_guard.h"
#include "simdex/builder.h"
#include "simdex/error.h"
#include "simdex/fingerprint.h"
#include "simdex/version.h"

namespace {
// A program started with stdin, stdout or stderr closed (`<&-`) would get that descriptor for the
// first file it opens: `query INDEX <&-` read its own index as queries, and an index opened as
// descriptor 1 would be written to. Each closed one is held by /dev/null opened the other way, so
// that using it still fails as a closed one does (EBADF), naming standard input or output.
void hold_closed_standard_descriptors() {
  for (int fd = STDIN_FILENO; fd <= STDERR_FILENO; ++fd) {
    if (::fcntl(fd, F_GETFD) != -1 || errno != EBADF) continue;
    const int held = ::open("/dev/null", fd == STDIN_FILENO ? O_WRONLY : O_RDONLY);
    if (held >= 0 && held != fd) {  // (descriptors are given lowest first: held is fd)
      ::dup2(held, fd);
      ::close(held);
    }
  }
}
}  // namespace

int main(int argc, char** argv) {
  hold_closed_standard_descriptors();
  CLI::App app{
      "simdex: find near-duplicate documents by 64-bit simhash fingerprints (Manku, Jain, Das Sarma 2007).\n"
      "Build a compressed index file once, then query it from many processes.\n\n"
      "  simdex build -o docs.sdx fingerprints.tsv     # lines: FINGERPRINT[<TAB>ID]\n"
      "  simdex query docs.sdx 0x1f2e3d4c5b6a7988      # hits within the index's k bits\n"
      "  simdex info docs.sdx                          # tables, sizes, bits per entry\n\n"
      "Exit codes: 0 success, 1 failure (bad input, corrupt index, verify problems), 2 usage error.",
      "simdex"};
  app.require_subcommand(1);
  simdex::cli::use_help_format(app);
  // SIGINT, SIGTERM, SIGHUP, SIGPIPE leave no temporary file of any command's outputs behind.
  simdex::remove_temporary_files_on_signals();
  // No input may be the file standard output writes (`query IDX FP >> IDX`): format/standard_output_guard.h.
  simdex::format::refuse_reading_standard_output(true);
  // The library's version, and the format versions it writes and reads.
  app.set_version_flag("--version", std::string("simdex ") + simdex::version() + "\nindex format: writes " +
                                        std::to_string(SIMDEX_FORMAT_VERSION_MAJOR) + "." +
                                        std::to_string(SIMDEX_FORMAT_VERSION_MINOR) + ", reads " +
                                        std::to_string(SIMDEX_FORMAT_READS_MAJOR) + ".x and " +
                                        std::to_string(SIMDEX_FORMAT_READS_OLDEST_MAJOR) + ".x" +
                                        "\ntext fingerprints: spec/FINGERPRINT.md version 1, Unicode " +
                                        simdex::unicode_version());
  simdex::cli::add_build_command(app);
  simdex::cli::add_query_command(app);
  simdex::cli::add_verify_command(app);
  simdex::cli::add_info_command(app);
  simdex::cli::add_fingerprint_command(app);
  simdex::cli::add_join_command(app);
  simdex::cli::add_pairs_command(app);
  simdex::cli::add_clusters_command(app);
  simdex::cli::add_dedup_command(app);
  simdex::cli::add_add_command(app);
  simdex::cli::add_remove_command(app);
  simdex::cli::add_merge_command(app);
  simdex::cli::add_plan_command(app);
  simdex::cli::add_upgrade_command(app);
  simdex::cli::add_help_command(app);  // last: it lists the commands registered before it
  simdex::cli::refuse_empty_values(app);
  // Messages are made printable: they quote input lines and file names, which may hold escape sequences.
  int rc = 0;
  std::string reported;  // the error said, if any
  try {
    if (argc > 1 && argv[1][0] != '-') simdex::cli::require_command(app, argv[1]);  // a typo named as such
    simdex::cli::answer_first_of_help_and_version(argc, argv);
    simdex::cli::refuse_empty_assignments(argc, argv);
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    rc = simdex::cli::report_parse_error(app, e, std::cout, std::cerr);
  } catch (const simdex::Error& e) {
    reported = e.what();
    std::cerr << "simdex: " << simdex::cli::printable(reported) << "\n";
    rc = e.code() == simdex::errc::usage ? 2 : 1;
  } catch (const std::exception& e) {
    reported = simdex::cli::failure_message(e);
    std::cerr << "simdex: " << simdex::cli::printable(reported) << "\n";
    rc = 1;
  }
  // A write error met while an error was on its way out (the results before it could not be kept),
  // unless it is that error, met again by the output's close.
  if (const std::string deferred = simdex::cli::take_deferred_error();
      !deferred.empty() && deferred != reported) {
    std::cerr << "simdex: " << simdex::cli::printable(deferred) << "\n";
    rc = 1;
  }
  // What went through stdio (--help, --version): its errors count too.
  if (std::fflush(stdout) != 0 || std::ferror(stdout)) {
    std::cerr << "simdex: writing standard output: " << std::strerror(errno) << "\n";
    rc = 1;
  }
  return rc;
}
