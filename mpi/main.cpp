// simdex-mpi: build, join, pairs and clusters of an index set over the ranks of an MPI job
// (mpirun -np P simdex-mpi ...). Same inputs and output formats as the simdex command.
// Exit codes: 0 success; 1 failure (any rank's); 2 usage error.
#include <mpi.h>

#include <cstdio>
#include <iostream>
#include <sstream>

#include "cli/command_names.h"
#include "cli/empty_values.h"
#include "cli/help_format.h"
#include "cli/output.h"
#include "format/standard_output_guard.h"
#include "mpi/commands.h"
#include "mpi/world.h"
#include "simdex/builder.h"
#include "simdex/error.h"
#include "simdex/version.h"

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  CLI::App app{
      "simdex-mpi: simdex's batch work on an index set spread over the ranks of an MPI job.\n\n"
      "  mpirun -np 4 simdex-mpi build -o docs.sdxs fingerprints.tsv   # one member per rank\n"
      "  mpirun -np 4 simdex-mpi join docs.sdxs queries.tsv > hits.tsv\n"
      "  mpirun -np 4 simdex-mpi pairs docs.sdxs > pairs.tsv\n"
      "  mpirun -np 4 simdex-mpi clusters docs.sdxs > clusters.txt\n\n"
      "Outputs are those of `simdex build/join/pairs/clusters` on the whole set (the same lines; their\n"
      "order may differ). Exit codes: 0 success, 1 failure of any rank, 2 usage error.",
      "simdex-mpi"};
  app.require_subcommand(1);
  simdex::cli::use_help_format(app);
  // A rank that mpirun stops (SIGINT, SIGTERM) leaves no temporary file of its member or output.
  simdex::remove_temporary_files_on_signals();
  // No input may be the file standard output writes, as in `simdex` (a rank run without mpirun
  // writes the shell's file; under mpirun standard output is a pipe, left alone).
  simdex::format::refuse_reading_standard_output(true);
  app.set_version_flag("--version", std::string("simdex-mpi ") + simdex::version());
  simdex::mpi::add_build_command(app);
  simdex::mpi::add_join_command(app);
  simdex::mpi::add_pairs_command(app);
  simdex::mpi::add_clusters_command(app);
  simdex::cli::refuse_empty_values(app);
  int rc = 0;
  std::string reported;  // the error rank 0 said, if any
  try {
    if (argc > 1 && argv[1][0] != '-') simdex::cli::require_command(app, argv[1]);  // a typo named as such
    simdex::cli::answer_first_of_help_and_version(argc, argv);
    simdex::cli::refuse_empty_assignments(argc, argv);
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    std::ostringstream out, err;  // every rank parses alike: rank 0 alone prints
    rc = simdex::cli::report_parse_error(app, e, out, err);
    if (rank == 0) {
      std::cout << out.str() << std::flush;
      std::cerr << err.str();
    }
  } catch (const simdex::mpi::JobFailed& e) {
    rc = e.status;                    // the failing ranks printed why
  } catch (const simdex::Error& e) {  // outside a step: every rank met it alike
    reported = e.what();
    if (rank == 0) std::cerr << "simdex-mpi: " << simdex::cli::printable(reported) << "\n";
    rc = e.code() == simdex::errc::usage ? 2 : 1;
  } catch (const std::exception& e) {
    std::cerr << "simdex-mpi: rank " << rank << ": "
              << simdex::cli::printable(simdex::cli::failure_message(e)) << "\n";
    std::fflush(stderr);
    MPI_Abort(MPI_COMM_WORLD, 1);  // this rank alone: the others may wait in a collective
  }
  // Unless it is the error said, met again by the output's close.
  if (const std::string deferred = simdex::cli::take_deferred_error();
      !deferred.empty() && deferred != reported) {
    std::cerr << "simdex-mpi: rank " << rank << ": " << simdex::cli::printable(deferred) << "\n";
    rc = 1;
  }
  std::fflush(stdout);
  MPI_Finalize();
  return rc;
}
