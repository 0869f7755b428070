// Publishes a file atomically (spec/FORMAT.md §11, "Atomic publishing"): everything is written to a temporary
// file beside the target, fsynced, renamed over the target, and the directory is fsynced. Readers
// of the old file keep their mapping; nobody ever sees a partial file at the target path.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "writer/temp_files.h"

namespace simdex::writer {

// `target` when it is absent or a regular file; else Error(io): rename(2) would replace a device
// node, FIFO or socket with the file, or the symbolic link itself rather than the file it names.
const std::string& checked_target(const std::string& target);
// Error(usage) when `target` is an index set's manifest (an index written there would replace the
// set and leave its members behind), or has the name of one of a set's entries, SET_NAME-G.sdx or
// .sdt beside the manifest SET_NAME (it would replace a member, breaking the set, or be removed by
// the set's next writer as an entry a dead writer left).
void refuse_replacing_set(const std::string& target);
// Error(io) naming `target` when its directory does not exist ("" and "-" pass): checked before
// a command's or a builder's work, so that the message names the output.
void require_target_directory(const std::string& target);
// The longest name (bytes) an output in directory `dir` may have: the file system's limit on a
// name, less the room its temporary file ".NAME.tmp-PID-N" takes.
std::size_t max_output_name_bytes(const std::string& dir);
// Error(usage) when writing `output` would replace `input`: both exist and are one file (device and
// inode, so another path or a hard link to it is caught too; "-" as input is stdin), or `input` is
// a directory (of documents) that `output` would lie in, at any depth: the output would change the
// input while it is read, and be read as a document by the next run. `what` names the output in
// the message ("output", "the key map", ...). An `output` of "" or "-" is standard output, checked
// as it is open (`>> input` and `> input` are refused too).
void refuse_input_as_output(const std::string& input, const std::string& output,
                            const std::string& what = "output");
// Error(usage) when two outputs of one job are one file (the same path once made absolute and
// resolved, or the same device and inode): the second written would replace the first. "" and "-"
// (standard output) never clash with a file.
void refuse_same_output(const std::string& a, const std::string& a_what, const std::string& b,
                        const std::string& b_what);
// fsync of `dir`, after a name in it changed (a rename, a link); Error(io) naming it on failure.
void fsync_directory(const std::string& dir);

// `scratch`: a file the process itself reads and removes (a set merged for its pairs): published by
// rename all the same, but never flushed to disk (no writeback, fsync or directory fsync).
enum class Durability { durable, scratch };

class AtomicFile {
 public:
  // Creates the temporary file; throws Error(io), also when the target exists and is not a regular
  // file (a device, FIFO, directory, socket or symbolic link: renaming over it would replace it).
  explicit AtomicFile(std::string target, Durability durability = Durability::durable);
  ~AtomicFile();  // unpublished: the temporary file is removed (by temp_)
  AtomicFile(const AtomicFile&) = delete;
  AtomicFile& operator=(const AtomicFile&) = delete;

  void write(const void* data, std::size_t size);                      // sequential, buffered
  void write_at(uint64_t offset, const void* data, std::size_t size);  // for the header, at the end
  // Bytes written at `offset` from any thread, unbuffered: sections written by the workers that
  // made them. The caller keeps them clear of the buffered sequential bytes (skip_to first, then
  // skip_to again past them). With more than two writers (expect_writers), large ones are copied
  // through a mapping of the file: pwrite holds the file's lock while it copies, so that ten
  // workers writing their tables at 100M copied one at a time (2.5 s on 16 cores). One or two
  // writers seldom wait for the lock, and pwrite costs less than a mapping (its fallocate, faults
  // and unmapping): a 30M paper-10 build on 1 and 2 threads took 4-8% longer through mappings.
  void write_parallel(uint64_t offset, const void* data, std::size_t size);
  // How many threads call write_parallel at once, at most (by default, many).
  void expect_writers(unsigned writers) { writers_ = writers; }
  // From here to end_direct_writes, write_parallel writes its whole pages straight to the disk
  // (O_DIRECT), not into the page cache: in a VM a large file's fresh cache pages took a quarter
  // of a 30M build's CPU (a page the host backs at its first touch: 1 GB/s, against 5 GB/s into
  // pages used a moment before), and its writeback ran at 0.6 GB/s where direct writes reach
  // 2 GB/s; the file is then read from the disk by its first readers. The bytes of the pages a
  // write shares with others, or fills only in part, are kept and written through the cache by
  // end_direct_writes, when no direct write is under way: the kernel keeps the cache and direct
  // writes in step only for pages that no buffered write touches meanwhile. Nothing else may write
  // while a direct write is under way; a buffered write, sync or publish ends them first. False
  // (nothing changed): a scratch file, or one whose file system reads or writes none directly
  // (tmpfs before Linux 6.6, some network file systems).
  bool begin_direct_writes();
  void end_direct_writes();
  // The buffered bytes written out; the sequential writes go on at `offset` (>= position()).
  void skip_to(uint64_t offset);
  uint64_t position() const { return position_; }
  // Flush, fsync, rename over the target (checked again: still absent or a regular file; a file
  // replaced gives the new one its permissions), fsync the directory. (The constructor removes the
  // temporary files of the same target that no live process holds locked.) `renamed`, when given,
  // runs right after the rename, the two one step for the signal cleanup
  // (without_cleanup_signals): a set's manifest, whose rename decides which files are the set's.
  void publish(const std::function<void()>& renamed = {});
  // The bytes written so far made durable (flush, fsync) without publishing: a file published
  // right after another (a key map after its index) then renames with little left to do.
  void sync();

  const std::string& temp_path() const { return temp_.path(); }

 private:
  void flush();
  void start_writeback();  // of the bytes written since the last call, when they are many
  void pwrite_all(uint64_t offset, const void* data, std::size_t size);
  bool map_write(uint64_t offset, const void* data, std::size_t size);  // false: use pwrite
  // fallocate of the bytes: true; false where the file system has none; Error(io) otherwise.
  bool reserve_blocks(uint64_t offset, uint64_t size);
  void write_direct(uint64_t offset, const uint8_t* data, std::size_t size);
  // Called before bytes [offset, offset + size) are written: the file's 2 MiB regions that they
  // are the first to reach are cached as 2 MiB folios (format/page_cache.h), zero, before the
  // writes fill them (the file extended as far as that needs; publish cuts it back to end_). Not
  // the regions that a pwrite of them all makes such folios by itself (by_pwrite, where
  // writes_cache_huge_folios): they are only claimed.
  void cache_regions(uint64_t offset, std::size_t size, bool by_pwrite);
  std::string target_;
  OwnedTemp temp_;  // locked by this process until it is renamed and closed
  std::vector<uint8_t> buffer_;
  uint64_t position_ = 0;  // == flushed_ + buffer_.size()
  uint64_t flushed_ = 0;
  Durability durability_;
  unsigned writers_ = ~0u;           // expect_writers
  uint64_t writeback_from_ = 0;      // bytes before it were handed to start_writeback
  std::size_t huge_page_bytes_ = 0;  // the regions' size; 0: none are cached so
  bool writes_cache_huge_folios_ = false;
  std::mutex regions_lock_;  // cache_regions runs on every writing thread; guards edges_ too
  int direct_fd_ = -1;       // the file open with O_DIRECT, between begin_ and end_direct_writes
  struct Edge {              // bytes a direct write left to end_direct_writes
    uint64_t offset;
    std::vector<uint8_t> bytes;
  };
  std::vector<Edge> edges_;
  // The page-aligned buffers that direct writes copy through, kept for the next write: a fresh one
  // cost a VM 1,024 page faults and as many cleared pages a write (3% of a 30M build's samples).
  std::vector<std::unique_ptr<uint8_t, void (*)(void*)>> direct_buffers_;
  std::vector<bool> cached_regions_;
  uint64_t end_ = 0;       // the end of the furthest write: the file's size once published
  uint64_t extended_ = 0;  // the file's size as cache_regions last set it (0: never)
};

// The prefix of temporary files for `target`: ".NAME.tmp-" in the target's directory.
std::string temp_prefix(const std::string& target);

}  // namespace simdex::writer
