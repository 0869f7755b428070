// The library's version, and the check that the public header's format versions are the format code's.
#include "simdex/version.h"

#include "format/layout.h"

static_assert(SIMDEX_FORMAT_VERSION_MAJOR == simdex::format::kVersionMajor &&
                  SIMDEX_FORMAT_VERSION_MINOR == simdex::format::kVersionMinor &&
                  SIMDEX_FORMAT_READS_MAJOR == simdex::format::kVersionMajor &&
                  SIMDEX_FORMAT_READS_OLDEST_MAJOR == simdex::format::kOldestVersionMajor,
              "include/simdex/version.h and format/layout.h disagree on the format version");

namespace simdex {

const char* version() noexcept { return SIMDEX_VERSION_STRING; }

}  // namespace simdex
