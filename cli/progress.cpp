#include "cli/progress.h"

#include <unistd.h>

#include <cstdio>

namespace simdex::cli {

Progress::Progress(bool enabled) : enabled_(enabled) {}

bool Progress::stderr_is_terminal() { return ::isatty(STDERR_FILENO) == 1; }

void Progress::update(std::string_view stage, uint64_t done, uint64_t total) {
  if (!enabled_) return;
  const auto now = std::chrono::steady_clock::now();
  if (showing_ && now - last_ < std::chrono::milliseconds(250) && done != total) return;
  last_ = now;
  if (total > 0)
    std::fprintf(stderr, "\r%.*s: %llu/%llu (%.0f%%)   ", static_cast<int>(stage.size()), stage.data(),
                 static_cast<unsigned long long>(done), static_cast<unsigned long long>(total),
                 100.0 * static_cast<double>(done) / static_cast<double>(total));
  else
    std::fprintf(stderr, "\r%.*s: %llu   ", static_cast<int>(stage.size()), stage.data(),
                 static_cast<unsigned long long>(done));
  showing_ = true;
}

void Progress::finish() {
  if (showing_) std::fputc('\n', stderr);
  showing_ = false;
}

}  // namespace simdex::cli
