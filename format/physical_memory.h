// The machine's physical memory: the one sysconf reading behind the build's default memory bound
// and the bound on an index read from a pipe.
#pragma once

#include <unistd.h>

#include <cstdint>

namespace simdex::format {

// Bytes of physical memory; 0 where the system does not say.
inline uint64_t physical_memory_bytes() {
  const long pages = ::sysconf(_SC_PHYS_PAGES), page = ::sysconf(_SC_PAGESIZE);
  return pages > 0 && page > 0 ? static_cast<uint64_t>(pages) * static_cast<uint64_t>(page) : 0;
}

}  // namespace simdex::format
