// An index file's page cache in 2 MiB folios. A mapping of a file cached that way gets 2 MiB page
// table entries (Linux 6.x with large folios: ext4, XFS, btrfs), so that a probe's block costs no
// page walk: a page walk of a 4 KiB mapping is a cache miss of its own once other work has evicted
// the page tables (a join of 4,096 queries against 1M fingerprints after 256 MiB of other memory:
// 1.20x faster on such a file, warm 1.13x, single queries 1.08x; bench/RESULTS.md). What decides
// the folios is how the pages enter the cache: writes of less than 2 MiB and reads through a
// MADV_RANDOM mapping make 4 KiB folios, a fault in a mapping asked for huge pages reads a whole
// 2 MiB folio where no page of it is cached yet.
#pragma once

#include <cstddef>
#include <cstdint>

namespace simdex::format::page_cache {

// The size of the huge pages that the file open as `fd` can be cached and mapped in: 2 MiB when the
// kernel's transparent huge pages are on ("always" or "madvise", at 2 MiB) and the file lies on a
// local file system whose page cache can hold such folios (ext4, XFS, btrfs, or an overlay of
// them, as in a container); else 0, and nothing below is worth its system calls (on a network
// file system, reading a region would be a request to the server; on tmpfs, whose mount's huge=
// option decides its folios, populating a hole allocates and zeroes its pages).
std::size_t huge_page_bytes(int fd);

// Whether a buffered write (pwrite) that covers a whole 2 MiB region of the file open as `fd`, where
// none of its pages is cached, caches it as one 2 MiB folio by itself: ext4 from Linux 6.16, where
// huge_page_bytes(fd) is not 0. There, caching such a region first (cache_in_huge_pages) only
// zeroes the folio that the write then fills: 9% of a 1-thread 10M build's samples, though the
// write's copy then costs more (into memory not just cleared): 3.6% fewer samples in all.
bool writes_cache_huge_folios(int fd);

// Brings the 2 MiB regions holding bytes [offset, offset + bytes) of the file open as `fd` (at
// least that long) into the page cache, in 2 MiB folios where none of a region's pages is cached yet,
// through a mapping of their own (read-only, asked for huge pages, unmapped after). Only a hint:
// where the kernel or file system declines, the pages are cached as they would be otherwise, or
// not at all. Nothing when huge_page_bytes(fd) is 0.
void cache_in_huge_pages(int fd, uint64_t offset, uint64_t bytes);

}  // namespace simdex::format::page_cache
