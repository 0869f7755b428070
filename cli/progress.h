// Progress lines on stderr for long work, only when stderr is a terminal (or forced), at most a few
// times a second.
#pragma once

#include <chrono>
#include <cstdint>
#include <string_view>

namespace simdex::cli {

class Progress {
 public:
  explicit Progress(bool enabled);
  static bool stderr_is_terminal();
  void update(std::string_view stage, uint64_t done, uint64_t total);  // total 0: unknown
  void finish();                                                       // ends the line, if one is showing

 private:
  bool enabled_;
  bool showing_ = false;
  std::chrono::steady_clock::time_point last_{};
};

}  // namespace simdex::cli
