// Temporary files of an external sort: sorted runs of fixed-size records, written and read
// sequentially through a buffer. Files are named ".simdex-sort-PID-N" in the chosen directory and
// held locked by their build (writer/temp_files.h), so a killed build leaves recognisable files;
// the next build with the same directory removes those nobody holds, whether it spills or not. Each
// file is removed by its owner's destructor, on success and on failure.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <memory>
#include <mutex>
#include <string>
#include <type_traits>
#include <vector>

#include "writer/temp_files.h"

namespace simdex::writer {

// The system's temporary directory ($TMPDIR, else /tmp); Error(io) naming it when it is missing.
std::string system_temp_directory();

// Where temporary files go and how they are named; counts the bytes they hold. Thread-safe.
class ScratchSpace {
 public:
  // dir empty: the system's temporary directory. Removes the files that killed builds left in dir;
  // nothing is created until a file is.
  explicit ScratchSpace(std::string dir);
  std::string next_path();
  uint64_t bytes_in_use() const;
  uint64_t peak_bytes() const;
  uint64_t files_created() const;
  void account(int64_t delta);
  static constexpr const char* kPrefix = ".simdex-sort-";  // then PID-N

 private:
  mutable std::mutex mutex_;
  std::string dir_;
  uint64_t counter_ = 0, in_use_ = 0, peak_ = 0;
};

// A temporary file, removed by the destructor. Writes append; reads are positional.
class TempFile {
 public:
  explicit TempFile(ScratchSpace& space);  // creates it (O_EXCL); throws Error(io)
  ~TempFile();
  TempFile(const TempFile&) = delete;
  TempFile& operator=(const TempFile&) = delete;
  void append(const void* data, std::size_t bytes);
  // Reads up to `bytes` at `offset`; returns how many were read (less only at the end of the file).
  std::size_t read_at(uint64_t offset, void* data, std::size_t bytes) const;
  uint64_t size() const { return size_; }
  const std::string& path() const { return file_.path(); }

 private:
  ScratchSpace& space_;
  OwnedTemp file_;
  uint64_t size_ = 0;
};

// Appends records of type T (trivially copyable, native byte order: the files never leave this
// process) to a TempFile through a buffer of `buffer_records`.
template <typename T>
class RunWriter {
  static_assert(std::is_trivially_copyable_v<T>);

 public:
  RunWriter(TempFile& file, std::size_t buffer_records) : file_(file) {
    buffer_.reserve(std::max<std::size_t>(buffer_records, 1));
  }
  ~RunWriter() = default;  // an unflushed writer is abandoned with its file (on failure)
  void add(const T& record) {
    buffer_.push_back(record);
    if (buffer_.size() == buffer_.capacity()) flush();
  }
  void add(const T* records, std::size_t count) {
    for (std::size_t i = 0; i < count; ++i) add(records[i]);
  }
  void flush() {
    if (!buffer_.empty()) file_.append(buffer_.data(), buffer_.size() * sizeof(T));
    buffer_.clear();
  }

 private:
  TempFile& file_;
  std::vector<T> buffer_;
};

// Reads the records of a TempFile (from `first` to `first + count`) sequentially through a buffer.
template <typename T>
class RunReader {
  static_assert(std::is_trivially_copyable_v<T>);

 public:
  RunReader(const TempFile& file, std::size_t buffer_records, uint64_t first = 0, uint64_t count = UINT64_MAX)
      : file_(&file),
        next_(first),
        end_(first + std::min(count, file.size() / sizeof(T) - first)),
        buffer_(std::max<std::size_t>(buffer_records, 1)) {
    refill();
  }
  bool done() const { return pos_ == filled_; }
  const T& head() const { return buffer_[pos_]; }
  void pop() {
    if (++pos_ == filled_) refill();
  }
  // The buffered records not yet popped; consume(n) drops n of them.
  const T* chunk(std::size_t& count) const {
    count = filled_ - pos_;
    return buffer_.data() + pos_;
  }
  void consume(std::size_t n) {
    pos_ += n;
    if (pos_ == filled_) refill();
  }

 private:
  void refill();
  const TempFile* file_;
  uint64_t next_, end_;  // record numbers
  std::vector<T> buffer_;
  std::size_t pos_ = 0, filled_ = 0;
};

[[noreturn]] void throw_short_read(const std::string& path);

template <typename T>
void RunReader<T>::refill() {
  pos_ = 0;
  filled_ = static_cast<std::size_t>(std::min<uint64_t>(buffer_.size(), end_ - next_));
  if (filled_ == 0) return;
  const std::size_t bytes = filled_ * sizeof(T);
  if (file_->read_at(next_ * sizeof(T), buffer_.data(), bytes) != bytes) throw_short_read(file_->path());
  next_ += filled_;
}

}  // namespace simdex::writer
