// A progress bar on stderr for long work: stage, bar, done/total, rate and ETA, redrawn in place at
// most four times a second. Shown only when stderr is a terminal and --quiet is not given (or when
// forced: build --progress), so pipes and logs never get it.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <string_view>

namespace simdex::cli {

class Progress {
 public:
  enum class Unit { items, bytes };
  explicit Progress(bool enabled);
  static bool stderr_is_terminal();
  // Whether a command shows progress: stderr a terminal and not `quiet`, or `force`.
  static bool wanted(bool quiet, bool force = false) { return force || (!quiet && stderr_is_terminal()); }

  // `done` of `total` units (total 0: unknown, then a count and a rate). A new stage restarts the rate.
  void update(std::string_view stage, uint64_t done, uint64_t total, Unit unit = Unit::items);
  void finish();  // ends the line, if one is showing
  bool enabled() const { return enabled_; }

 private:
  using clock = std::chrono::steady_clock;
  bool enabled_;
  bool showing_ = false;
  std::string stage_;
  clock::time_point last_{}, stage_start_{};
  std::size_t width_ = 0;  // of the line shown, cleared by the next
};

// "12.3 MB", "4.56M", "789": a count of `unit`s, short.
std::string human_count(double value, Progress::Unit unit);

}  // namespace simdex::cli
