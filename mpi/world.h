// The MPI job as simdex-mpi sees it: this rank, the rank count, and the few collective patterns the
// commands use. Every collective is entered by every rank in the same order; local work that may
// fail runs inside step(), so that a rank that fails still reaches the next collective and the
// whole job stops together (no rank left waiting, nothing published).
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

namespace simdex::mpi {

// Thrown on every rank once some rank's step failed (that rank printed why). `status` is the exit
// code: 2 when a rank's error was a usage error, else 1.
struct JobFailed : std::runtime_error {
  explicit JobFailed(int s) : std::runtime_error("the job failed"), status(s) {}
  int status;
};

class World {
 public:
  World();  // MPI_COMM_WORLD (MPI must be initialised)
  int rank() const { return rank_; }
  int size() const { return size_; }
  bool root() const { return rank_ == 0; }
  // The ranks on this machine, and the threads a rank uses by default: the cores shared among them.
  unsigned local_ranks() const { return local_ranks_; }
  unsigned default_threads() const;

  // Runs `work` here; then all ranks learn whether any rank's work failed. Rank 0 prints the
  // failures on stderr, each message once with the ranks that met it ("simdex-mpi: rank 3 of 4:
  // WHAT", "simdex-mpi: ranks 0-3 of 4: WHAT"), and every rank throws JobFailed.
  void step(const std::function<void()>& work) const;

  // Sends out[d] to rank d, returns what every rank sent here (concatenated in rank order). Large
  // exchanges go in rounds, so no MPI count overflows an int.
  std::vector<uint64_t> exchange(std::vector<std::vector<uint64_t>>& out) const;
  // Every rank's `mine`, concatenated in rank order, on every rank.
  std::vector<uint64_t> all_gather(std::span<const uint64_t> mine) const;
  // `data` of rank `from`, on every rank (resized there).
  void broadcast(std::vector<uint64_t>& data, int from) const;
  void broadcast(std::string& text, int from) const;
  uint64_t sum(uint64_t mine) const;
  // Rank 0 receives each rank's `mine` in rank order (its own first) and hands it to `take`; the
  // other ranks send theirs. Memory on rank 0: one rank's part at a time.
  void gather_to_root(std::span<const uint64_t> mine,
                      const std::function<void(std::span<const uint64_t>)>& take) const;

 private:
  void report_failures(const std::string& message) const;  // collective; "" where this rank did not fail

  int rank_ = 0, size_ = 1;
  unsigned local_ranks_ = 1;
};

}  // namespace simdex::mpi
