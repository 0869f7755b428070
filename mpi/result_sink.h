// Where the merged results of join, pairs and clusters go: one output on rank 0 (standard output,
// or -o FILE), to which every rank's part is sent in turn, or with --output-dir one file per rank
// (DIR/part-RRRRR.EXT). Files are cli::Output's: written under temporary names and renamed only when
// every rank's was written (publish), so a failed job publishes nothing.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "cli/output.h"
#include "mpi/world.h"

namespace simdex::mpi {

class ResultSink {
 public:
  // `output`: rank 0's file ("" or "-": standard output); `output_dir`: one file per rank instead,
  // refused when it holds part files of an earlier job (they would mix with this job's). `inputs`:
  // the files the job reads, which an output must not replace. Collective (every rank opens its
  // file, failures reported by World::step).
  ResultSink(const World& world, const std::string& output, const std::string& output_dir,
             const std::string& extension, const std::vector<std::string>& inputs);
  ~ResultSink();  // without publish(): temporary files removed

  // Collective: `print` writes records to an Output: on rank 0 for every rank's `words` in turn (with
  // `whole`, all of them at once), or each rank to its own file.
  using Printer = std::function<void(cli::Output&, std::span<const uint64_t> words)>;
  void write(std::span<const uint64_t> words, const Printer& print, bool whole = false);
  // Collective: finishes every rank's file, then (all of them written) renames them to their names.
  void publish();

 private:
  void remove_unpublished();  // the file not closed, the directory this job made when empty

  const World& world_;
  bool per_rank_;
  std::string path_;                // "" or "-" for standard output
  std::optional<cli::Output> out_;  // rank 0, or every rank with --output-dir
  std::string made_dir_;            // --output-dir when this job made it, until published
};

}  // namespace simdex::mpi
