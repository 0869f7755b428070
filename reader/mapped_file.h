// A whole file mapped read-only. Processes mapping the same file share its pages in the page cache;
// nothing is copied into the process's heap.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>

#include "reader/change_watch.h"

namespace simdex::reader {

// A mapped file keeps its descriptor (its read lease, spec/FORMAT.md §14), so a set of many members
// holds as many: the soft limit on open files is raised (up to the hard one) to leave room for
// `more` descriptors beyond those open now, and a few for the rest of the process. Error(io) naming
// `what` when even the hard limit leaves no such room (before any is opened: a process out of
// descriptors fails in odd places).
void allow_more_open_files(std::size_t more, const std::string& what);

class MappedFile {
 public:
  // Throws Error(io), naming the file `what` ("index", "key map"). With `watch_changes`, a
  // ChangeWatch guards the mapping (reader/change_watch.h).
  MappedFile(const std::string& path, bool watch_changes, const std::string& what = "index");
  ~MappedFile();
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;
  const uint8_t* data() const { return data_; }
  std::size_t size() const { return size_; }
  const std::string& path() const { return path_; }
  // Null without a watch.
  const ChangeWatch* watch() const { return watch_.get(); }

  // How the pages will be read, told to the kernel (madvise). A new mapping is `random`: a probe
  // reads a block here and a block there, and the default read-around would load some 32 pages
  // around each one, which on a file larger than the page cache evicts what other probes need.
  // Scans over every block (verify, pairs, clusters) ask for `sequential` read-ahead meanwhile.
  enum class Access { random, sequential };
  void advise(Access access) const;
  // Reads bytes [offset, offset + bytes) into the page cache and maps them into this process now,
  // so that no later read of them faults (OpenOptions::preload). Clipped to the file. With
  // `huge_pages`, what is not cached yet is read in 2 MiB folios (format/page_cache.h), which this
  // mapping then maps with 2 MiB pages: for a range that the process will read all over.
  void populate(std::size_t offset, std::size_t bytes, bool huge_pages = false) const;

 private:
  std::string path_;
  int fd_ = -1;
  std::unique_ptr<ChangeWatch> watch_;
  const uint8_t* data_ = nullptr;
  std::size_t size_ = 0;
};

}  // namespace simdex::reader
