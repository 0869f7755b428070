#include "writer/atomic_file.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <memory>
#include <new>
#include <utility>

#include "format/page_cache.h"
#include "format/set_manifest.h"
#include "format/standard_output_guard.h"
#include "format/system_error.h"
#include "io/fd_io.h"
#include "simdex/error.h"

namespace simdex::writer {

namespace {
constexpr std::size_t kBufferBytes = 1 << 20;

std::string directory_of(const std::string& path) {
  const auto slash = path.rfind('/');
  if (slash == std::string::npos) return ".";
  return slash == 0 ? "/" : path.substr(0, slash);
}
std::string base_of(const std::string& path) {
  const auto slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}
}  // namespace

// The temporary file is ".NAME.tmp-PID-N": a dot, ".tmp-", a PID and a counter of up to 10 digits.
constexpr std::size_t kTempNameExtra = 1 + 5 + 10 + 1 + 10;

const std::string& checked_target(const std::string& target) {
  if (target.empty() || target.back() == '/')
    throw Error(errc::usage, "output path '" + target + "' names no file");
  if (target.find('\0') != std::string::npos)  // the C library would write the name up to the NUL
    throw Error(errc::usage, "an output path holds a NUL byte");
  struct stat st {};
  if (::lstat(target.c_str(), &st) != 0) {
    if (errno == ENOENT) return target;
    throw system_error("cannot check output", target);
  }
  if (S_ISLNK(st.st_mode))
    throw Error(errc::io, "output '" + target +
                              "' is a symbolic link: simdex replaces only regular files (name the file it "
                              "points to, or remove the link)");
  if (!S_ISREG(st.st_mode))
    throw Error(errc::io, "output '" + target + "' exists and is not a regular file (" +
                              (S_ISDIR(st.st_mode)    ? "a directory"
                               : S_ISFIFO(st.st_mode) ? "a FIFO"
                               : S_ISSOCK(st.st_mode) ? "a socket"
                                                      : "a device") +
                              "): simdex replaces only regular files");
  return target;
}

std::string temp_prefix(const std::string& target) {
  const std::string dir = directory_of(target);
  return (target.find('/') == std::string::npos ? "" : dir + "/") + "." + base_of(target) + ".tmp-";
}

AtomicFile::AtomicFile(std::string target, Durability durability)
    : target_(std::move(target)),
      temp_(
          [prefix = temp_prefix(checked_target(target_)) + std::to_string(getpid()) + "-"] {
            static std::atomic<unsigned> counter{0};
            return prefix + std::to_string(counter++);
          },
          O_RDWR, 0644),
      durability_(durability) {
  // Leftovers of killed writes of this target: ".NAME.tmp-*" that no live process holds locked
  // (this one's is locked). Here rather than at publish, so that killed builds do not pile up.
  remove_unlocked(directory_of(target_), "." + base_of(target_) + ".tmp-");
  buffer_.reserve(kBufferBytes);
  huge_page_bytes_ = format::page_cache::huge_page_bytes(temp_.fd());
  writes_cache_huge_folios_ = format::page_cache::writes_cache_huge_folios(temp_.fd());
}

AtomicFile::~AtomicFile() {
  if (direct_fd_ >= 0) ::close(direct_fd_);
}

void AtomicFile::write(const void* data, std::size_t size) {
  const auto* p = static_cast<const uint8_t*>(data);
  if (buffer_.size() + size > kBufferBytes) flush();
  if (size >= kBufferBytes) {
    pwrite_all(flushed_, p, size);
    flushed_ += size;
    start_writeback();
  } else {
    buffer_.insert(buffer_.end(), p, p + size);
  }
  position_ += size;
}

void AtomicFile::flush() {
  if (buffer_.empty()) return;
  pwrite_all(flushed_, buffer_.data(), buffer_.size());
  flushed_ += buffer_.size();
  buffer_.clear();
  start_writeback();
}

void AtomicFile::start_writeback() {
#ifdef SYNC_FILE_RANGE_WRITE
  // Every 32 MiB written, the kernel is asked to start writing them to disk, without waiting: the
  // disk works while the build encodes the next tables, and publish's fsync finds little left (it
  // took 0.5 s of a 10M build after the last byte). Only a hint: fsync still makes them durable.
  constexpr uint64_t kWritebackBytes = uint64_t{32} << 20;
  if (durability_ == Durability::scratch || flushed_ - writeback_from_ < kWritebackBytes) return;
  ::sync_file_range(temp_.fd(), static_cast<off_t>(writeback_from_),
                    static_cast<off_t>(flushed_ - writeback_from_), SYNC_FILE_RANGE_WRITE);
  writeback_from_ = flushed_;
#endif
}

void AtomicFile::write_at(uint64_t offset, const void* data, std::size_t size) {
  flush();  // buffered bytes first, so they cannot land over these later
  pwrite_all(offset, data, size);
}

void AtomicFile::write_parallel(uint64_t offset, const void* data, std::size_t size) {
  if (direct_fd_ >= 0) return write_direct(offset, static_cast<const uint8_t*>(data), size);
  if (writers_ <= 2 || !map_write(offset, data, size)) pwrite_all(offset, data, size);
#ifdef SYNC_FILE_RANGE_WRITE
  if (durability_ == Durability::durable)
    ::sync_file_range(temp_.fd(), static_cast<off_t>(offset), static_cast<off_t>(size),
                      SYNC_FILE_RANGE_WRITE);
#endif
}

void AtomicFile::cache_regions(uint64_t offset, std::size_t size, bool by_pwrite) {
  const std::size_t huge = huge_page_bytes_;
  std::vector<uint64_t> fresh;  // regions to cache, claimed under the lock, cached outside it
  {
    std::lock_guard<std::mutex> hold(regions_lock_);
    end_ = std::max(end_, offset + size);
    if (huge == 0 || size == 0) return;
    const uint64_t last = (offset + size - 1) / huge;
    if (cached_regions_.size() <= last) cached_regions_.resize(last + 1);
    const bool write_makes_folios = by_pwrite && writes_cache_huge_folios_;
    for (uint64_t r = offset / huge; r <= last; ++r)
      if (!cached_regions_[r]) {
        cached_regions_[r] = true;
        const bool whole = r * huge >= offset && (r + 1) * huge <= offset + size;
        if (!(whole && write_makes_folios)) fresh.push_back(r);
      }
    // The regions' pages must lie within the file to be mapped: a sparse extension, no blocks.
    // To end_ at least, past every write begun (which may not have reached the file yet), so that
    // it never cuts one short. Not past RLIMIT_FSIZE, which would end the process (SIGXFSZ) where
    // the writes themselves fit.
    const uint64_t want = fresh.empty() ? 0 : (fresh.back() + 1) * huge;
    if (want > extended_) {
      const uint64_t file_size = std::max(want, end_);
      rlimit limit{};
      if (::getrlimit(RLIMIT_FSIZE, &limit) != 0 ||
          (limit.rlim_cur != RLIM_INFINITY && file_size > limit.rlim_cur))
        return;
      if (::ftruncate(temp_.fd(), static_cast<off_t>(file_size)) != 0) return;
      extended_ = file_size;
    }
  }
  for (const uint64_t r : fresh) format::page_cache::cache_in_huge_pages(temp_.fd(), r * huge, huge);
}

bool AtomicFile::reserve_blocks(uint64_t offset, uint64_t size) {
  int rc;
  while ((rc = ::fallocate(temp_.fd(), 0, static_cast<off_t>(offset), static_cast<off_t>(size))) != 0 &&
         errno == EINTR) {
  }
  if (rc == 0) return true;
  if (errno == EOPNOTSUPP || errno == ENOSYS) return false;
  throw system_error("cannot write", temp_.path());
}

bool AtomicFile::map_write(uint64_t offset, const void* data, std::size_t size) {
#if defined(__linux__) && defined(MADV_POPULATE_WRITE)
  // Small sections gain nothing from a mapping of their own.
  constexpr std::size_t kMapBytes = std::size_t{4} << 20;
  if (size < kMapBytes) return false;
  cache_regions(offset, size, false);
  // The blocks reserved first: a write to a mapped page that the disk has no room for would be a
  // SIGBUS, where fallocate fails with a message. A file system without fallocate gets pwrite.
  if (!reserve_blocks(offset, size)) return false;
  const auto page = static_cast<uint64_t>(::sysconf(_SC_PAGESIZE));
  const uint64_t from = offset / page * page;
  const std::size_t bytes = static_cast<std::size_t>(offset - from) + size;
  void* map =
      ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, temp_.fd(), static_cast<off_t>(from));
  if (map == MAP_FAILED) return false;
  // The pages faulted in writable at once (a fault a page is slower), and any fault that would be
  // a SIGBUS (an I/O error) is an error here instead: the bytes then go by pwrite.
  ::madvise(map, bytes, MADV_HUGEPAGE);
  if (::madvise(map, bytes, MADV_POPULATE_WRITE) != 0) {
    ::munmap(map, bytes);
    return false;
  }
  std::memcpy(static_cast<uint8_t*>(map) + (offset - from), data, size);
  ::munmap(map, bytes);
  return true;
#else
  (void)offset, (void)data, (void)size;
  return false;
#endif
}

namespace {
// Direct writes in whole 4 KiB pages from page-aligned memory, at page-aligned offsets: what every
// Linux file system and device that writes directly takes (a logical block of 512 bytes or 4 KiB),
// and the unit the page cache is kept in step with them.
constexpr uint64_t kDirectAlign = 4096;
// Copied through a buffer of this size, page-aligned (the caller's bytes seldom are: a table starts
// wherever the one before it ended).
constexpr std::size_t kDirectChunk = std::size_t{4} << 20;
}  // namespace

bool AtomicFile::begin_direct_writes() {
#if defined(__linux__) && defined(O_DIRECT)
  if (durability_ == Durability::scratch || direct_fd_ >= 0) return false;
  flush();
  // A second descriptor of the same file, so that the buffered writes before and after stay as
  // they are. Through /proc/self/fd: the file, whatever its name.
  const std::string self = "/proc/self/fd/" + std::to_string(temp_.fd());
  const int fd = ::open(self.c_str(), O_RDWR | O_DIRECT | O_CLOEXEC);
  if (fd < 0) return false;
  struct stat a {
  }, b{};
  // A direct read of the file's first page: where the file system takes the open but no direct
  // transfer (or not in 4 KiB units), it fails here, not in the middle of the tables.
  const std::unique_ptr<uint8_t, void (*)(void*)> page(
      static_cast<uint8_t*>(std::aligned_alloc(kDirectAlign, kDirectAlign)), std::free);
  if (!page || ::fstat(fd, &a) != 0 || ::fstat(temp_.fd(), &b) != 0 || a.st_dev != b.st_dev ||
      a.st_ino != b.st_ino || ::pread(fd, page.get(), kDirectAlign, 0) < 0) {
    ::close(fd);
    return false;
  }
  direct_fd_ = fd;
  return true;
#else
  return false;
#endif
}

void AtomicFile::write_direct(uint64_t offset, const uint8_t* data, std::size_t size) {
  const uint64_t end = offset + size;
  const uint64_t first = (offset + kDirectAlign - 1) / kDirectAlign * kDirectAlign;
  const uint64_t last = std::max(first, end / kDirectAlign * kDirectAlign);
  {
    std::lock_guard<std::mutex> hold(regions_lock_);
    end_ = std::max(end_, end);
    auto keep = [&](uint64_t from, uint64_t to) {  // bytes [from, to) of the file, for end_direct_writes
      if (to > from)
        edges_.push_back({from, std::vector<uint8_t>(data + (from - offset), data + (to - offset))});
    };
    if (first >= end) return keep(offset, end);
    keep(offset, first);
    keep(last, end);
  }
  if (last == first) return;
  // The blocks reserved first: no room on the disk is an error here, and the file is extended by
  // this rather than by the writes (ext4 runs direct writes within the file at once, under a
  // shared lock; one that extends it takes the file's lock). Without fallocate the writes extend it.
  reserve_blocks(first, last - first);
  std::unique_ptr<uint8_t, void (*)(void*)> buffer(nullptr, std::free);
  {
    std::lock_guard<std::mutex> hold(regions_lock_);
    if (!direct_buffers_.empty()) {
      buffer = std::move(direct_buffers_.back());
      direct_buffers_.pop_back();
    }
  }
  if (!buffer) buffer.reset(static_cast<uint8_t*>(std::aligned_alloc(kDirectAlign, kDirectChunk)));
  if (!buffer) throw std::bad_alloc();
  for (uint64_t at = first; at < last; at += kDirectChunk) {
    const auto n = static_cast<std::size_t>(std::min<uint64_t>(kDirectChunk, last - at));
    std::memcpy(buffer.get(), data + (at - offset), n);
    if (!io::pwrite_all(direct_fd_, buffer.get(), n, at)) throw system_error("cannot write", temp_.path());
  }
  std::lock_guard<std::mutex> hold(regions_lock_);
  direct_buffers_.push_back(std::move(buffer));
}

void AtomicFile::end_direct_writes() {
  if (direct_fd_ < 0) return;
  ::close(std::exchange(direct_fd_, -1));
  std::vector<Edge> edges;
  {
    std::lock_guard<std::mutex> hold(regions_lock_);
    edges.swap(edges_);
    direct_buffers_.clear();
  }
  for (const Edge& e : edges)
    if (!io::pwrite_all(temp_.fd(), e.bytes.data(), e.bytes.size(), e.offset))
      throw system_error("cannot write", temp_.path());
}

void AtomicFile::skip_to(uint64_t offset) {
  flush();
  position_ = flushed_ = writeback_from_ = offset;
}

void AtomicFile::pwrite_all(uint64_t offset, const void* data, std::size_t size) {
  end_direct_writes();  // a write through the cache ends them (their kept bytes first)
  cache_regions(offset, size, true);
  if (!io::pwrite_all(temp_.fd(), data, size, offset)) throw system_error("cannot write", temp_.path());
}

void AtomicFile::sync() {
  end_direct_writes();
  flush();
  // The tail that cache_regions added beyond the last byte written.
  if (extended_ > end_ && ::ftruncate(temp_.fd(), static_cast<off_t>(end_)) != 0)
    throw system_error("cannot truncate", temp_.path());
  if (durability_ == Durability::durable && ::fsync(temp_.fd()) != 0)
    throw system_error("cannot fsync", temp_.path());
}

void AtomicFile::publish(const std::function<void()>& renamed) {
  // A file replaced keeps its permissions (a private 0600 file stays private): set before the one
  // fsync below, which makes the mode durable with the bytes.
  struct stat old {};
  if (::stat(target_.c_str(), &old) == 0 && S_ISREG(old.st_mode)) ::fchmod(temp_.fd(), old.st_mode & 07777);
  sync();
  checked_target(target_);  // it may have changed during the build
  without_cleanup_signals([&] {
    if (!temp_.rename_to(target_)) throw system_error("cannot rename temporary file over", target_);
    if (renamed) renamed();
  });
  // Closed only now: the lock keeps other builds' cleanup off the file until it has its name. The
  // bytes are on disk (fsync above), and the target is replaced: close's result changes nothing.
  temp_.close();
  if (durability_ == Durability::durable) fsync_directory(directory_of(target_));
}

namespace {
// `path` made absolute and resolved as far as it exists: "x" and "./x" of a file not there yet are
// one path. Empty, with `ec` set, when that fails.
std::filesystem::path resolved(const std::string& path, std::error_code& ec) {
  std::filesystem::path p = std::filesystem::weakly_canonical(std::filesystem::absolute(path, ec), ec);
  return ec ? std::filesystem::path() : p;
}

// Whether `path` (existing or not) lies in the directory `dir` (device and inode), at any depth.
bool lies_in(const std::string& path, const struct stat& dir) {
  std::error_code ec;
  for (std::filesystem::path p = resolved(path, ec).parent_path(); !p.empty(); p = p.parent_path()) {
    struct stat st {};
    if (::stat(p.c_str(), &st) == 0 && st.st_dev == dir.st_dev && st.st_ino == dir.st_ino) return true;
    if (p == p.root_path()) break;
  }
  return false;
}

// The path standard output was opened as (`> out.fp`), from /proc; "" where that cannot be read.
std::string stdout_path() {
  std::error_code ec;
  const std::filesystem::path p = std::filesystem::read_symlink("/proc/self/fd/1", ec);
  return ec || !p.is_absolute() ? std::string() : p.string();
}
}  // namespace

void refuse_input_as_output(const std::string& input, const std::string& output, const std::string& what) {
  struct stat in {
  }, out{};
  // Standard output counts too: `simdex dedup in.jsonl -o - >> in.jsonl` would read its own output
  // without end, and `> in.fp` would have emptied the input before the run began.
  // (A pipe, a terminal or a device as standard output is read by nothing.)
  const bool to_stdout = output.empty() || output == "-";
  if (to_stdout && (::fstat(1, &out) != 0 || !S_ISREG(out.st_mode))) return;
  if ((input == "-" ? ::fstat(0, &in) : ::stat(input.c_str(), &in)) != 0) return;
  const std::string shown = to_stdout ? "standard output" : what + " " + output;
  const std::string out_path = to_stdout ? stdout_path() : output;
  if (input != "-" && S_ISDIR(in.st_mode) && !out_path.empty() && lies_in(out_path, in))
    throw Error(errc::usage, shown + (to_stdout ? " (" + out_path + ")" : std::string()) +
                                 " lies in the input directory " + input +
                                 ": writing it would change the input while it is read, and the next run "
                                 "would read it as a document; write it outside " +
                                 input);
  if (!to_stdout && ::stat(output.c_str(), &out) != 0) return;  // (standard output's: stat above)
  if (in.st_dev == out.st_dev && in.st_ino == out.st_ino && S_ISREG(out.st_mode))
    throw Error(errc::usage, to_stdout ? format::standard_output_is_input(input == "-" ? "<stdin>" : input)
                                       : what + " " + output + " is the same file as the input " +
                                             (input == "-" ? "<stdin>" : input) +
                                             ": it would replace its own input; write to another path");
}

void refuse_same_output(const std::string& a, const std::string& a_what, const std::string& b,
                        const std::string& b_what) {
  if (a.empty() || b.empty() || (a == "-" && b == "-")) return;
  if (a == "-" || b == "-") {  // a file renamed over the one standard output writes: that output lost
    const std::string& file = a == "-" ? b : a;
    const std::string& file_what = a == "-" ? b_what : a_what;
    struct stat st {};
    if (::stat(file.c_str(), &st) == 0 && format::is_standard_output(st))
      throw Error(errc::usage, file_what + " " + file + " is the file standard output writes (" +
                                   (a == "-" ? a_what : b_what) +
                                   "): it would replace that output; give them different files");
    return;
  }
  std::error_code ec_a, ec_b;
  bool same = resolved(a, ec_a) == resolved(b, ec_b) && !ec_a && !ec_b;
  struct stat sa {
  }, sb{};
  if (!same && ::stat(a.c_str(), &sa) == 0 && ::stat(b.c_str(), &sb) == 0)
    same = sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
  if (same) throw Error(errc::usage, a_what + " " + a + " is also " + b_what + ": give them different paths");
}

void fsync_directory(const std::string& dir) {
  const int dfd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dfd < 0) throw system_error("cannot open directory", dir);
  const int rc = ::fsync(dfd);
  const int err = errno;
  ::close(dfd);
  errno = err;
  if (rc != 0) throw system_error("cannot fsync directory", dir);
}

void refuse_replacing_set(const std::string& target) {
  if (format::starts_with_set_magic(target))
    throw Error(errc::usage, "'" + target +
                                 "' is an index set's manifest: an index written there would replace the set "
                                 "and leave its members behind; add to the set with `simdex add`, or "
                                 "write the index to another path");
  const std::filesystem::path path(target);
  const std::optional<format::EntryFileName> entry = format::parse_entry_file_name(path.filename().string());
  if (!entry) return;
  const std::string manifest = (path.parent_path() / entry->set_name).string();
  if (!format::starts_with_set_magic(manifest)) return;
  throw Error(errc::usage, "'" + target + "' has the name of a " + (entry->member ? "member" : "tombstone") +
                               " of the index set '" + manifest +
                               "' (spec/SET.md §1: its writers own such names): an index written there would "
                               "replace one of the set's files, or be removed by its next writer; write the "
                               "index to another path, or add to the set with `simdex add`");
}

void require_target_directory(const std::string& target) {
  if (target.empty() || target == "-") return;
  const std::string dir = std::filesystem::path(target).parent_path().string();
  std::error_code ec;
  if (!dir.empty() && !std::filesystem::is_directory(dir, ec)) {
    const bool exists = std::filesystem::exists(dir, ec);
    throw Error(
        errc::io,
        "cannot write " + target + ": '" + dir + "' " + (exists ? "is not a directory" : "does not exist"),
        exists ? ENOTDIR : ENOENT);
  }
  // A name the file system takes may still be too long for the temporary file, found only when
  // the work is done unless checked here.
  const std::size_t length = base_of(target).size();
  const std::size_t most = max_output_name_bytes(dir);
  if (length > most)
    throw Error(errc::usage,
                "output name '" + base_of(target) + "' is " + std::to_string(length) +
                    " bytes: its temporary file would pass the file system's " +
                    std::to_string(most + kTempNameExtra) + "-byte limit on a name; give one of at most " +
                    std::to_string(most) + " bytes",
                ENAMETOOLONG);
}

std::size_t max_output_name_bytes(const std::string& dir) {
  const long name_max = ::pathconf(dir.empty() ? "." : dir.c_str(), _PC_NAME_MAX);
  const std::size_t limit = name_max > 0 ? static_cast<std::size_t>(name_max) : NAME_MAX;
  return limit > kTempNameExtra ? limit - kTempNameExtra : 0;
}

}  // namespace simdex::writer
