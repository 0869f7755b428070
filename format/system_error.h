// The Error of a system call that just failed: its errno kept (Error::os_error()) and said.
#pragma once

#include <sys/resource.h>

#include <cerrno>
#include <cstring>
#include <string>

#include "simdex/error.h"

namespace simdex {

// errc::io, "<what>: <strerror(errno)>". Called right after the failed call, before anything that
// may set errno again (`what` is built first: an allocation that succeeds leaves errno alone).
inline Error system_error(const std::string& what) {
  const int e = errno;
  std::string said = what + ": " + std::strerror(e);
  if (e == EMFILE) {  // the one cause the user can change, and how
    struct rlimit limit {};
    if (::getrlimit(RLIMIT_NOFILE, &limit) == 0 && limit.rlim_cur != RLIM_INFINITY)
      said += " (this process may have " + std::to_string(limit.rlim_cur) +
              " open files, ulimit -n: raise it; a build's external sort keeps up to 63 runs of each "
              "level open, an open index set a file for each member)";
  }
  return Error(errc::io, said, e);
}
// "<what> '<path>': <strerror(errno)>".
inline Error system_error(const std::string& what, const std::string& path) {
  return system_error(what + " '" + path + "'");
}

}  // namespace simdex
