// The files of an index set (spec/SET.md §1): where the manifest's names lie, how writers name new
// files, reading a small file whole, and the writers' lock.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "format/set_manifest.h"

namespace simdex::set {

// `path` made absolute against the working directory now, as given when that fails (a working
// directory removed): what reopen() opens, so that a chdir since open() names no other file.
std::string reopen_path(const std::string& path);
// The file `path` names: `path`, or where it is a symbolic link (a "current" link moved from set to
// set), the file it finally names: a manifest's, whose directory holds the members (spec/SET.md
// §2.2), or an index's or set's, beside which the CLI's --keys looks when the link has no map.
std::string manifest_file(const std::string& path);
// The manifest's directory ("." when the path has none).
std::string set_directory(const std::string& manifest_path);
// `name` (a legal entry name) resolved against the manifest's directory.
std::string entry_path(const std::string& manifest_path, const std::string& name);
// Writers' names: SET_NAME-GGGGGGGGGGGGGGGG.sdx (members) and .sdt (tombstones).
std::string member_name(const std::string& manifest_path, uint64_t generation);
std::string tombstone_name(const std::string& manifest_path, uint64_t generation);
// `manifest_path` when a writer may write a set there: its files' names (above) are legal names
// (spec/SET.md §2.2; a set named otherwise could never be opened) and the manifest is absent or a
// regular file. Else Error(usage) or Error(io), before anything is written.
std::string checked_set_path(std::string manifest_path);

// Where a writer writes the entry `name` before it takes that name (see name_entry_file).
std::string pending_entry_path(const std::string& manifest_path, const std::string& name);
// Gives the file at `pending` the name `name` in the set's directory without replacing a file of
// that name: a writer never replaces a published member or tombstone (one that ignored the lock may
// have published that generation meanwhile). Error(io) when the name is taken (`pending` removed).
// Durable once the caller syncs the directory (writer::fsync_directory(set_directory(...))): kept
// apart, so that the caller can name and register the file in one step a signal does not split.
void name_entry_file(const std::string& manifest_path, const std::string& pending, const std::string& name);

// Removes the entry `name` (a legal name) from the set's directory once no manifest names it: the
// file, or the link itself where the name is a symbolic link, and nothing where a directory on the
// name's way is a link (a member linked in from elsewhere, §2.2, lies outside the set: §8 lets a
// writer remove the set's own files). False when nothing was removed.
bool remove_entry_file(const std::string& manifest_path, const std::string& name);
// The path remove_entry_file would remove, or "" where it would remove nothing (a link on the way).
std::string removable_entry_path(const std::string& manifest_path, const std::string& name);

// The whole file when it has at most `max_bytes`; else only its first 64 bytes (the header of a
// manifest or tombstone, what tells why it is refused), so that a hostile size costs no memory and
// no reading. `size`, when given, gets the file's size. Error(member_missing) when it is absent or not
// a regular file (as rule 12 says), Error(io) when it cannot be read.
std::vector<uint8_t> read_whole_file(const std::string& path, uint64_t max_bytes = UINT64_MAX,
                                     uint64_t* size = nullptr);
// A manifest's bytes, for SetManifest::decode: the whole file, read only when it is no larger than
// the largest manifest; a larger file is refused by the first rule of spec/SET.md §5 it breaks.
std::vector<uint8_t> read_manifest(const std::string& path);
// The manifest in `bytes` (read from `path`): SetManifest::decode, its errors naming the path.
format::SetManifest decode_manifest(const std::string& path, const std::vector<uint8_t>& bytes);
// Error(member_missing) unless `path` is a regular file (following links).
void require_regular_file(const std::string& path);
using format::starts_with_set_magic;  // format/set_manifest.h: whether `path` is a set's manifest

// An exclusive flock on SET.lock, held while it lives (spec/SET.md §8). `wait`: block until the
// other writer is done; else Error(io) naming the lock at once.
class SetLock {
 public:
  // Waiting (wait = true) for another writer: blocked in flock, or, given `waiting`, polling every
  // 50 ms and calling waiting() between tries, which may throw to give up (Python's Ctrl-C).
  SetLock(const std::string& manifest_path, bool wait, const std::function<void()>& waiting = {});
  ~SetLock();
  SetLock(const SetLock&) = delete;
  SetLock& operator=(const SetLock&) = delete;

  // The lock file removed, when this lock created it: a writer that made no set (a remove of a set
  // that does not exist, a path that is not a manifest) leaves no SET.lock behind. Done while the
  // lock is held; a writer waiting on the removed file finds it unnamed and locks a new one.
  void remove_if_created();

 private:
  bool holds_file_at_path() const;  // the locked file is the one named SET.lock now
  std::string path_;
  int fd_ = -1;
  bool created_ = false;  // this lock's open created the file
};

}  // namespace simdex::set
