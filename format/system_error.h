// The Error of a system call that just failed: its errno kept (Error::os_error()) and said.
#pragma once

#include <cerrno>
#include <cstring>
#include <string>

#include "simdex/error.h"

namespace simdex {

// errc::io, "<what>: <strerror(errno)>". Called right after the failed call, before anything that
// may set errno again (`what` is built first: an allocation that succeeds leaves errno alone).
inline Error system_error(const std::string& what) {
  const int e = errno;
  return Error(errc::io, what + ": " + std::strerror(e), e);
}
// "<what> '<path>': <strerror(errno)>".
inline Error system_error(const std::string& what, const std::string& path) {
  return system_error(what + " '" + path + "'");
}

}  // namespace simdex
