#include "cli/progress.h"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>

namespace simdex::cli {

std::string elapsed_text(std::chrono::steady_clock::time_point start) {
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (seconds < 0.1) return fmt::format("{:.3f} s", seconds);
  return seconds < 10 ? fmt::format("{:.2f} s", seconds) : fmt::format("{:.1f} s", seconds);
}

namespace {
constexpr int bar_cells = 24;

std::string duration(double seconds) {
  const auto s = static_cast<uint64_t>(seconds + 0.5);
  if (s >= 3600) return fmt::format("{}:{:02}:{:02}", s / 3600, s / 60 % 60, s % 60);
  return fmt::format("{}:{:02}", s / 60, s % 60);
}
}  // namespace

std::function<void(std::string_view, uint64_t, uint64_t)> batch_progress(Progress& progress, std::string job,
                                                                         std::string unit) {
  return [&progress, job = std::move(job), unit = std::move(unit)](std::string_view stage, uint64_t done,
                                                                   uint64_t total) {
    progress.update(job + ": " + (stage == job ? unit : std::string(stage)), done, total);
  };
}

std::string human_count(double value, Progress::Unit unit) {
  const bool bytes = unit == Progress::Unit::bytes;
  const char* suffix[] = {"", "k", "M", "G", "T", "P"};
  int i = 0;
  while (value >= 1000 && i < 5) {
    value /= 1000;
    ++i;
  }
  if (bytes) return i == 0 ? fmt::format("{:.0f} B", value) : fmt::format("{:.1f} {}B", value, suffix[i]);
  return i == 0 ? fmt::format("{:.0f}", value) : fmt::format("{:.2f}{}", value, suffix[i]);
}

void add_progress_flags(CLI::App& cmd, bool& quiet, bool& progress, const char* quiet_help) {
  CLI::Option* q =
      cmd.add_flag("-q,--quiet", quiet,
                   quiet_help ? quiet_help : "No progress bar (shown only when stderr is a terminal)");
  cmd.add_flag("--progress", progress,
               "Show progress on stderr even when it is not a terminal (then a line every 10 s, for logs)")
      ->excludes(q);
}

Progress::Progress(bool enabled) : enabled_(enabled), terminal_(enabled && stderr_is_terminal()) {}

bool Progress::stderr_is_terminal() { return ::isatty(STDERR_FILENO) == 1; }

void Progress::update(std::string_view stage, uint64_t done, uint64_t total, Unit unit) {
  if (!enabled_) return;
  const auto now = clock::now();
  const bool end = total > 0 && done == total;
  if (terminal_ && stage == stage_ && showing_ && now - last_ < std::chrono::milliseconds(250) && !end)
    return;
  auto start = std::find_if(starts_.begin(), starts_.end(), [&](const auto& s) { return s.first == stage; });
  const bool new_stage = start == starts_.end();
  // A log gets a line when a stage starts, when it ends (once), and every 10 seconds between.
  if (!terminal_ && !new_stage &&
      (end ? stage == stage_ && logged_end_ : now - last_ < std::chrono::seconds(10)))
    return;
  if (new_stage) start = starts_.insert(starts_.end(), {std::string(stage), now});
  stage_ = stage;
  last_ = now;
  const double seconds = std::chrono::duration<double>(now - start->second).count();
  const double rate = seconds > 0.2 ? static_cast<double>(done) / seconds : 0;
  std::string line = stage_ + " ";
  if (total > 0) {
    const double fraction = std::min(1.0, static_cast<double>(done) / static_cast<double>(total));
    const int filled = static_cast<int>(fraction * bar_cells);
    line += "[" + std::string(static_cast<std::size_t>(filled), '#') +
            std::string(static_cast<std::size_t>(bar_cells - filled), '.') + "]";
    line += fmt::format(" {:3.0f}% {}/{}", 100 * fraction, human_count(static_cast<double>(done), unit),
                        human_count(static_cast<double>(total), unit));
  } else {
    line += human_count(static_cast<double>(done), unit);
  }
  if (rate > 0) {
    line += "  " + human_count(rate, unit) + "/s";
    if (total > done) line += "  ETA " + duration(static_cast<double>(total - done) / rate);
  }
  if (!terminal_) {
    std::fprintf(stderr, "%s\n", line.c_str());
    std::fflush(stderr);
    logged_end_ = end;
    return;
  }
  const std::size_t shown = line.size();
  if (shown < width_) line.append(width_ - shown, ' ');  // clears the longer line before
  width_ = shown;
  std::fprintf(stderr, "\r%s", line.c_str());
  std::fflush(stderr);
  showing_ = true;
}

void Progress::finish() {
  if (showing_ && terminal_) std::fputc('\n', stderr);
  showing_ = false;
  width_ = 0;
  stage_.clear();
}

}  // namespace simdex::cli
