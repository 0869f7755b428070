#include "mpi/result_sink.h"

#include <fmt/format.h>
#include <unistd.h>

#include <filesystem>
#include <vector>

#include "simdex/error.h"
#include "writer/atomic_file.h"

namespace simdex::mpi {

namespace {
// A part file of a finished job in `dir` ("part-RRRRR.EXT"), or "" when there is none.
std::string earlier_part(const std::string& dir) {
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(dir, ec)) {
    const std::string name = entry.path().filename().string();
    if (name.rfind("part-", 0) == 0 && name.find(".tmp-") == std::string::npos) return name;
  }
  return "";
}
}  // namespace

ResultSink::ResultSink(const World& world, const std::string& output, const std::string& output_dir,
                       const std::string& extension, const std::vector<std::string>& inputs)
    : world_(world), per_rank_(!output_dir.empty()) {
  // Whether the directory was there before the job, seen by every rank before any makes it (each
  // rank makes it, on its machine's disk): the ranks of a job that made it remove it on failure.
  world.step([&] {
    std::error_code ec;
    if (per_rank_ && !std::filesystem::exists(output_dir, ec) && !ec) made_dir_ = output_dir;
  });
  try {
    // Checked by every rank before any makes its file: a rank's new temporary file is no earlier part.
    world.step([&] {
      if (!per_rank_) return;
      std::error_code ec;
      std::filesystem::create_directories(output_dir, ec);
      if (const std::string part = earlier_part(output_dir); !part.empty())
        throw Error(errc::usage, "--output-dir " + output_dir + " holds " + part +
                                     " of an earlier job, which would mix with this one's parts: remove "
                                     "the directory's part files, or give a new directory");
    });
    world.step([&] {
      if (per_rank_) {
        path_ = fmt::format("{}/part-{:05}.{}", output_dir, world.rank(), extension);
      } else if (world.root()) {
        path_ = output;
      } else {
        return;
      }
      for (const std::string& input : inputs) writer::refuse_input_as_output(input, path_);
      // As simdex's -o: a regular file (or none) is replaced whole when published (.gz, .zst:
      // compressed), a device or a FIFO written in place; a directory, a link to a file: refused here.
      out_.emplace(path_);
    });
  } catch (...) {  // the destructor does not run for a constructor that throws
    remove_unpublished();
    throw;
  }
}

ResultSink::~ResultSink() { remove_unpublished(); }

void ResultSink::remove_unpublished() {
  out_.reset();  // not closed: publishes nothing
  // A directory this job made and published nothing in goes too: every rank tries once its own
  // temporary file is gone, so the last one's rmdir finds it empty.
  if (!made_dir_.empty()) ::rmdir(made_dir_.c_str());
}

void ResultSink::write(std::span<const uint64_t> words, const Printer& print, bool whole) {
  if (per_rank_) {
    world_.step([&] { print(*out_, words); });
    return;
  }
  std::vector<uint64_t> all;
  world_.step([&] {
    world_.gather_to_root(words, [&](std::span<const uint64_t> part) {
      if (whole)
        all.insert(all.end(), part.begin(), part.end());
      else
        print(*out_, part);
    });
    if (whole && world_.root()) print(*out_, all);
  });
}

void ResultSink::publish() {
  world_.step([&] {
    if (out_) out_->finish();
  });
  world_.step([&] {
    if (out_) out_->close();
  });
  made_dir_.clear();
}

}  // namespace simdex::mpi
