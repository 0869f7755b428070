// The version of simdex and of the file format it reads and writes. CMake reads the numbers below
// (project(VERSION) comes from here), so this header is the one place to bump them.
//
// Versioning (README "Versioning"): simdex is 0.x; while it is, its API and ABI may change
// between minor versions (the shared library's SONAME is libsimdex.so.0.MINOR), never within one.
// The file format has its own version (spec/FORMAT.md): a reader reads every minor version of its
// major version.
#pragma once

#define SIMDEX_VERSION_MAJOR 0
#define SIMDEX_VERSION_MINOR 2
#define SIMDEX_VERSION_PATCH 0
#define SIMDEX_VERSION_STRING "0.2.0"
// MAJOR * 10000 + MINOR * 100 + PATCH, for #if comparisons.
#define SIMDEX_VERSION_NUMBER \
  (SIMDEX_VERSION_MAJOR * 10000 + SIMDEX_VERSION_MINOR * 100 + SIMDEX_VERSION_PATCH)

// The file format version simdex writes ...
#define SIMDEX_FORMAT_VERSION_MAJOR 2
#define SIMDEX_FORMAT_VERSION_MINOR 2
// ... and the files it reads: format major versions 1 and 2, any minor version ("1.x", "2.x").
#define SIMDEX_FORMAT_READS_MAJOR 2
#define SIMDEX_FORMAT_READS_OLDEST_MAJOR 1

#include "simdex/export.h"

namespace simdex {

// The version of the library actually linked (SIMDEX_VERSION_STRING is the one compiled against):
// a program can check that they agree.
SIMDEX_EXPORT const char* version() noexcept;

}  // namespace simdex
