// The temporary files of dedup runs (the index, a copy of stdin, Python's copy of its texts).
#pragma once

#include <memory>
#include <string>

#include "writer/temp_files.h"

namespace simdex {

// A new temporary file in `dir` ("": the system's temporary directory) named
// .simdex-dedup-tmp-PID-N + suffix: locked while it lives, removed by its destructor and by the
// cleanup of signals (and of Python's exit); one that a killed run left (its lock gone) is removed
// by the next call.
std::unique_ptr<writer::OwnedTemp> dedup_temp_file(const std::string& dir, const std::string& suffix);

}  // namespace simdex
