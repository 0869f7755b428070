// Fresh memory faulted in on several threads before one thread fills it. Under a hypervisor the
// first touch of a page is slow (the kernel zeroes it, and the host backs it): filling a build's
// 1.6 GB sort buffer at 100M fingerprints spent 2.7 s of the reading thread in page faults
// (bench/RESULTS.md, "Builds: fresh memory faulted in on all threads"), while the other threads
// waited for it. Spread over the build's threads, those faults run at once.
#pragma once

#include <cstddef>

namespace simdex::format {

// Faults in the pages of [p, p + bytes) writable on `threads` threads, keeping their contents (the
// range may share a page with values already written). With one thread, or for a small range,
// nothing is done: the pages fault in as they are first written.
void populate(void* p, std::size_t bytes, unsigned threads);

}  // namespace simdex::format
