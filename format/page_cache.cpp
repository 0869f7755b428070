#include "format/page_cache.h"

#include <sys/mman.h>
#ifdef __linux__
#include <sys/utsname.h>
#include <sys/vfs.h>
#endif

#include <cstdio>
#include <fstream>
#include <string>

#include "format/huge_pages.h"

namespace simdex::format::page_cache {

namespace {

constexpr unsigned long kExt4 = 0xEF53;  // ext2, ext3, ext4

// The type of the file system holding `fd` (statfs's f_type); 0 where it cannot be had.
unsigned long file_system_type([[maybe_unused]] int fd) {
#ifdef __linux__
  struct statfs fs {};
  if (::fstatfs(fd, &fs) == 0) return static_cast<unsigned long>(fs.f_type);
#endif
  return 0;
}

// huge_page_bytes for a file on a file system of type `type`.
std::size_t huge_page_bytes_on(unsigned long type) {
  static const std::size_t kernel_bytes = [] {
    constexpr std::size_t kHuge = huge_pages::kPage;
    std::ifstream enabled("/sys/kernel/mm/transparent_hugepage/enabled");
    std::ifstream size("/sys/kernel/mm/transparent_hugepage/hpage_pmd_size");
    std::string mode;
    std::size_t pmd = 0;
    if (!std::getline(enabled, mode) || mode.find("[never]") != std::string::npos || !(size >> pmd))
      return std::size_t{0};
    return pmd == kHuge ? kHuge : std::size_t{0};
  }();
  switch (type) {
    case kExt4:
    case 0x58465342:  // XFS
    case 0x9123683E:  // btrfs
    case 0x794C7630:  // overlayfs (a container's): its files' pages are those of the layer beneath
      return kernel_bytes;
    // tmpfs is not among them: its mount's huge= decides its folios when a page is written, and
    // populating its holes allocates and zeroes every 4 KiB page before the write that replaces it
    // (a 100M build on 16 threads to /dev/shm: 9.3-11.6 s instead of 7.4-7.9 s; bench/RESULTS.md).
    default:
      return 0;
  }
}

}  // namespace

std::size_t huge_page_bytes(int fd) { return huge_page_bytes_on(file_system_type(fd)); }

bool writes_cache_huge_folios(int fd) {
#ifdef __linux__
  static const unsigned kernel = [] {  // major * 1000 + minor
    utsname u{};
    unsigned major = 0, minor = 0;
    if (::uname(&u) != 0 || std::sscanf(u.release, "%u.%u", &major, &minor) != 2) return 0u;
    return major * 1000 + minor;
  }();
  // ext4's regular files in large folios came with 6.16 (measured on 6.18: 4 and 8 MiB pwrites at
  // 2 MiB offsets left every region a 2 MiB folio). Others (XFS, btrfs, an overlay of either) are
  // left to cache_in_huge_pages: not measured here.
  const unsigned long type = file_system_type(fd);
  return type == kExt4 && huge_page_bytes_on(type) != 0 && kernel >= 6016;
#else
  (void)fd;
  return false;
#endif
}

void cache_in_huge_pages(int fd, uint64_t offset, uint64_t bytes) {
#if defined(MADV_HUGEPAGE) && defined(MADV_POPULATE_READ)
  const std::size_t huge = huge_page_bytes(fd);
  if (huge == 0 || bytes == 0) return;
  const uint64_t from = offset / huge * huge, to = offset + bytes;
  const auto length = static_cast<std::size_t>(to - from);
  void* map = ::mmap(nullptr, length, PROT_READ, MAP_SHARED, fd, static_cast<off_t>(from));
  if (map == MAP_FAILED) return;
  // Huge pages asked for first, so that each fault reads a 2 MiB folio (even where read-ahead is
  // off); random access too, so that a fault reads that folio alone: a region of which some pages
  // are cached already (an index's header, read by open) is read in 4 KiB folios, and with the
  // default read-ahead so would be the next region, and every one after it. The faults taken by
  // the kernel, not by touching each page.
  if (::madvise(map, length, MADV_HUGEPAGE) == 0 && ::madvise(map, length, MADV_RANDOM) == 0)
    ::madvise(map, length, MADV_POPULATE_READ);
  ::munmap(map, length);
#else
  (void)fd, (void)offset, (void)bytes;
#endif
}

}  // namespace simdex::format::page_cache
