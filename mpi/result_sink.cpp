#include "mpi/result_sink.h"

#include <fmt/format.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
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
      final_path_ = fmt::format("{}/part-{:05}.{}", output_dir, world.rank(), extension);
    } else if (world.root() && !output.empty() && output != "-") {
      final_path_ = output;
    }
    if (!per_rank_ && !world.root()) return;
    for (const std::string& input : inputs)
      if (!final_path_.empty()) writer::refuse_input_as_output(input, final_path_);
    if (final_path_.empty()) {
      out_.emplace();
      return;
    }
    // The temporary name keeps the ending that tells Output to compress (.gz, .zst), as simdex's -o.
    const std::string ending = final_path_.ends_with(".gz")    ? ".gz"
                               : final_path_.ends_with(".zst") ? ".zst"
                                                               : "";
    temp_path_ = fmt::format("{}.tmp-{}{}", final_path_, ::getpid(), ending);
    out_.emplace(temp_path_);
  });
}

ResultSink::~ResultSink() {
  if (!temp_path_.empty()) {
    try {
      out_.reset();
    } catch (...) {
    }
    ::unlink(temp_path_.c_str());
  }
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
    if (out_) out_->close();
  });
  world_.step([&] {
    if (temp_path_.empty()) return;
    if (std::rename(temp_path_.c_str(), final_path_.c_str()) != 0)
      throw Error(errc::io,
                  "cannot rename " + temp_path_ + " to " + final_path_ + ": " + std::strerror(errno));
    temp_path_.clear();
  });
}

}  // namespace simdex::mpi
