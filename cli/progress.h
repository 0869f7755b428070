// A progress bar on stderr for long work: stage, bar, done/total, rate and ETA, redrawn in place at
// most four times a second. Shown only when stderr is a terminal and --quiet is not given, or when
// forced (--progress): then on a stderr that is not a terminal (a log, a job's captured stderr) it
// is a line of its own when a stage starts, every 10 seconds and when a stage is done, never
// redrawn with '\r', so that a log reads line by line.
#pragma once

#include <CLI/CLI.hpp>
#include <chrono>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace simdex::cli {

// A command's summary time since `start`: "0.004 s", "0.19 s", "4.86 s", "123.4 s" (a few digits,
// as a person reads it).
std::string elapsed_text(std::chrono::steady_clock::time_point start);

class Progress {
 public:
  enum class Unit { items, bytes };
  explicit Progress(bool enabled);
  static bool stderr_is_terminal();
  // Whether a command shows progress: stderr a terminal and not `quiet`, or `force`.
  static bool wanted(bool quiet, bool force = false) { return force || (!quiet && stderr_is_terminal()); }

  // `done` of `total` units (total 0: unknown, then a count and a rate). The rate counts from the
  // first update of the stage, so a stage that alternates with another (join: reading a chunk of
  // queries, joining it) shows its rate over the whole work, and an ETA that holds.
  void update(std::string_view stage, uint64_t done, uint64_t total, Unit unit = Unit::items);
  void finish();  // ends the line, if one is showing
  bool enabled() const { return enabled_; }

 private:
  using clock = std::chrono::steady_clock;
  bool enabled_;
  bool terminal_;            // stderr is one: the bar is redrawn in place; else a line now and then
  bool showing_ = false;     // a bar is on the terminal's last line
  bool logged_end_ = false;  // not a terminal: the last line written was the end of stage_
  std::string stage_;
  clock::time_point last_{};
  std::vector<std::pair<std::string, clock::time_point>> starts_;  // of each stage seen
  std::size_t width_ = 0;                                          // of the line shown, cleared by the next
};

// -q/--quiet (no progress bar) and --progress (a bar even when stderr is not a terminal: a log, a
// job's captured stderr), as every long-running command has them; the two exclude each other.
void add_progress_flags(CLI::App& cmd, bool& quiet, bool& progress, const char* quiet_help = nullptr);

// A batch job's progress (BatchOptions::progress) on `progress`: the job's own stage as "JOB: UNIT"
// ("pairs: blocks"), another (an index set's merge first) as "JOB: STAGE".
std::function<void(std::string_view, uint64_t, uint64_t)> batch_progress(Progress& progress, std::string job,
                                                                         std::string unit);

// "12.3 MB", "4.56M", "789": a count of `unit`s, short.
std::string human_count(double value, Progress::Unit unit);

}  // namespace simdex::cli
