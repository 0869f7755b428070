// simdex: near-duplicate detection over 64-bit simhash fingerprints.
// Exit codes: 0 success; 1 failure (bad input, unreadable or corrupt index, verify found problems);
// 2 usage error (unknown option, bad value, k above the index's k).
#include <cstdio>
#include <iostream>
#include <string>

#include "cli/commands.h"
#include "simdex/error.h"
#include "simdex/version.h"

int main(int argc, char** argv) {
  CLI::App app{
      "simdex: find near-duplicate documents by 64-bit simhash fingerprints (Manku, Jain, Das Sarma 2007).\n"
      "Build a compressed index file once, then query it from many processes.\n\n"
      "  simdex build -o docs.sdx fingerprints.tsv     # lines: FINGERPRINT[<TAB>ID]\n"
      "  simdex query docs.sdx 0x1f2e3d4c5b6a7988      # hits within the index's k bits\n"
      "  simdex info docs.sdx                          # tables, sizes, bits per entry\n\n"
      "Exit codes: 0 success, 1 failure (bad input, corrupt index, verify problems), 2 usage error.",
      "simdex"};
  app.require_subcommand(1);
  // The library's version, and the format versions it writes and reads.
  app.set_version_flag("--version", std::string("simdex ") + simdex::version() + "\nindex format: writes " +
                                        std::to_string(SIMDEX_FORMAT_VERSION_MAJOR) + "." +
                                        std::to_string(SIMDEX_FORMAT_VERSION_MINOR) + ", reads " +
                                        std::to_string(SIMDEX_FORMAT_READS_MAJOR) + ".x");
  simdex::cli::add_build_command(app);
  simdex::cli::add_query_command(app);
  simdex::cli::add_verify_command(app);
  simdex::cli::add_info_command(app);
  simdex::cli::add_fingerprint_command(app);
  simdex::cli::add_join_command(app);
  simdex::cli::add_pairs_command(app);
  simdex::cli::add_clusters_command(app);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int rc = app.exit(e);
    return rc == 0 ? 0 : 2;
  } catch (const simdex::Error& e) {
    std::fflush(stdout);
    std::cerr << "simdex: " << e.what() << "\n";
    return e.code() == simdex::errc::usage ? 2 : 1;
  } catch (const std::exception& e) {
    std::fflush(stdout);
    std::cerr << "simdex: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
