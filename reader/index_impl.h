// What an open Index holds: the mapping (when it owns one) and the validated view of its bytes.
#pragma once

#include <atomic>
#include <memory>
#include <optional>
#include <string>
#include <type_traits>

#include "reader/composite.h"
#include "reader/index_file.h"
#include "reader/mapped_file.h"
#include "simdex/index.h"

namespace simdex {

struct Index::Impl {
  std::unique_ptr<reader::MappedFile> mapping;  // null for from_buffer
  reader::IndexFile file;
  const std::atomic<bool>* changed = nullptr;  // the mapping's ChangeWatch flag, null without one
  // Set instead of the three above when the Index is an index set (set/): every call goes to it.
  std::shared_ptr<const reader::IndexComposite> composite;
  OpenOptions options;      // what open() was given (reopen uses them again)
  std::string reopen_path;  // the path open() was given, made absolute then (set::reopen_path)
};

const Index::Impl& index_impl(const Index& index);
Index index_from_impl(std::unique_ptr<Index::Impl> impl);

namespace reader {
// Opens `path` as an index file (FORMAT.md), whatever its magic says: Error(bad_magic) for
// anything else. Index::open (set/) calls it for files and for each member of a set.
std::unique_ptr<Index::Impl> open_file(const std::string& path, const OpenOptions& options);
// Loads what `what` names of an opened file into memory (OpenOptions::preload).
void preload(const Index::Impl& impl, OpenOptions::Preload what);
}  // namespace reader

[[noreturn]] void throw_file_changed(const Index::Impl& impl);

// Throws Error(file_changed) when the file is known to have changed since open: one load, no system
// call. `thorough` (long calls) also compares fstat with open's where no lease watches the file.
inline void throw_if_changed(const Index::Impl& impl, bool thorough = false) {
  if (impl.changed && (reader::changed(*impl.changed) || (thorough && impl.mapping->watch()->changed_now())))
    throw_file_changed(impl);
}

// Runs `read` (anything that reads the mapped bytes), then checks the file: when it changed
// meanwhile, the answer, or the error that reading changed bytes raised, becomes Error(file_changed).
// An error always asks fstat too (where no lease watches): bytes changed in place raise errors
// without a SIGBUS, and an error is rare enough to pay a system call.
template <class Read>
auto read_checked(const Index::Impl& impl, bool thorough, Read&& read) {
  auto guarded = [&] {
    try {
      return read();
    } catch (...) {
      throw_if_changed(impl, true);
      throw;
    }
  };
  if constexpr (std::is_void_v<decltype(read())>) {
    guarded();
    throw_if_changed(impl, thorough);
  } else {
    auto answer = guarded();
    throw_if_changed(impl, thorough);
    return answer;
  }
}

// For the duration of a scan over every block: sequential read-ahead, then random access again.
class SequentialScan {
 public:
  explicit SequentialScan(const Index::Impl& impl) : mapping_(impl.mapping.get()) {
    if (mapping_) mapping_->advise(reader::MappedFile::Access::sequential);
  }
  ~SequentialScan() {
    if (mapping_) mapping_->advise(reader::MappedFile::Access::random);
  }
  SequentialScan(const SequentialScan&) = delete;
  SequentialScan& operator=(const SequentialScan&) = delete;

 private:
  const reader::MappedFile* mapping_;
};

}  // namespace simdex
