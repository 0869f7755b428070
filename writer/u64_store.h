// A sequence of u64 written once and read several times: in memory, or in a temporary file when the
// builder works under a memory bound too small for it (the distinct fingerprints, the ids and their
// offsets of a large build).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <stdexcept>
#include <vector>

#include "format/huge_pages.h"
#include "format/populate.h"
#include "writer/run_file.h"

namespace simdex::writer {

class U64Store {
 public:
  static constexpr std::size_t kBufferValues = 1 << 17;  // 1 MiB per writer or reader
  U64Store() = default;                                  // in memory
  explicit U64Store(ScratchSpace& scratch)               // in a temporary file
      : file_(std::make_unique<TempFile>(scratch)),
        writer_(std::make_unique<RunWriter<uint64_t>>(*file_, kBufferValues)) {}

  void push(uint64_t v) {
    ++size_;
    if (writer_)
      writer_->add(v);
    else
      memory_.push_back(v);
  }
  // In memory, empty: room for n values, which the caller writes (from several threads if it
  // likes) through the pointer before finish().
  uint64_t* fill(uint64_t n) {
    if (file_ || size_ != 0) throw std::logic_error("U64Store::fill: not an empty store in memory");
    memory_.resize(static_cast<std::size_t>(n));
    size_ = n;
    return memory_.data();
  }
  void finish() {
    if (writer_) writer_->flush();
    writer_.reset();
  }
  uint64_t size() const { return size_; }
  bool in_memory() const { return !file_; }
  uint64_t memory_bytes() const { return memory_.capacity() * sizeof(uint64_t); }
  // Room for n values in memory, faulted in on `threads` threads (format::populate).
  void reserve(uint64_t n, unsigned threads = 1) {
    if (file_) return;
    memory_.reserve(static_cast<std::size_t>(n));
    format::populate(memory_.data() + memory_.size(),
                     (memory_.capacity() - memory_.size()) * sizeof(uint64_t), threads);
  }

  // f(values, count) over consecutive chunks, in order. Call after finish().
  template <typename F>
  void for_each_chunk(F&& f) const {
    if (!file_) {
      if (!memory_.empty()) f(memory_.data(), memory_.size());
      return;
    }
    RunReader<uint64_t> r(*file_, kBufferValues);
    while (!r.done()) {
      std::size_t count;
      const uint64_t* p = r.chunk(count);
      f(p, count);
      r.consume(count);
    }
  }

  // The values of a store in memory (after finish()).
  std::span<const uint64_t> values() const { return memory_.span(); }

  // Reads the values one by one (several cursors may read one store at once).
  class Cursor {
   public:
    explicit Cursor(const U64Store& s) : store_(s) {
      if (s.file_) reader_.emplace(*s.file_, kBufferValues);
    }
    uint64_t next() {
      if (!reader_) return store_.memory_[pos_++];
      const uint64_t v = reader_->head();
      reader_->pop();
      return v;
    }

   private:
    const U64Store& store_;
    std::optional<RunReader<uint64_t>> reader_;
    std::size_t pos_ = 0;
  };

 private:
  format::HugeBuffer<uint64_t> memory_;
  std::unique_ptr<TempFile> file_;
  std::unique_ptr<RunWriter<uint64_t>> writer_;
  uint64_t size_ = 0;
};

}  // namespace simdex::writer
