// Sorting more records than the memory bound holds: records are gathered in a buffer of at most
// memory/2 bytes; a full buffer is sorted and written as a run to a temporary file. Runs are merged
// k-way, fan_in at a time, as soon as fan_in runs of one level (merges undergone) exist, so that
// the open runs (each holds a descriptor) stay few however many are spilled; at the end, down to
// at most fan_in runs whose merge is streamed, as often as the caller wants, to a callback. When
// everything fits, no file is written and the sorted buffer is streamed instead: one code path
// for both cases.
#pragma once

#include <algorithm>
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "format/huge_pages.h"
#include "format/populate.h"
#include "writer/pair.h"
#include "writer/radix_sort.h"
#include "writer/run_file.h"

namespace simdex::writer {

// How a buffer is sorted: by radix sort (on `threads` threads) through a scratch as large as the
// buffer, the other half of the sorter's bound (SortPlan); distinct table entries as they are,
// pairs with their repeats dropped.
struct SortU64 {
  using Record = uint64_t;
  static std::size_t sort(std::span<uint64_t> v, std::span<uint64_t> scratch, unsigned threads) {
    radix_sort(v, scratch, threads);
    return v.size();
  }
};
struct SortPairs {
  using Record = Pair;
  static std::size_t sort(std::span<Pair> v, std::span<Pair> scratch, unsigned threads) {
    radix_sort(v, scratch, threads);
    return static_cast<std::size_t>(std::unique(v.begin(), v.end()) - v.begin());
  }
};

// The memory plan of a sorter with `memory_bytes` for records of `record_bytes`.
struct SortPlan {
  uint64_t buffer_records;  // records per run
  std::size_t fan_in;       // runs merged at once
  std::size_t read_buffer_records;
  static SortPlan for_memory(uint64_t memory_bytes, std::size_t record_bytes);
};

// Merges sorted readers, calling f(record) in ascending order (equal records all delivered).
template <typename T, typename F>
void merge_readers(std::vector<RunReader<T>>& readers, F&& f) {
  std::vector<uint32_t> heap;
  for (uint32_t i = 0; i < readers.size(); ++i)
    if (!readers[i].done()) heap.push_back(i);
  auto later = [&](uint32_t a, uint32_t b) { return readers[b].head() < readers[a].head(); };
  std::make_heap(heap.begin(), heap.end(), later);
  while (heap.size() > 1) {
    std::pop_heap(heap.begin(), heap.end(), later);
    RunReader<T>& r = readers[heap.back()];
    f(r.head());
    r.pop();
    if (r.done())
      heap.pop_back();
    else
      std::push_heap(heap.begin(), heap.end(), later);
  }
  if (heap.empty()) return;
  RunReader<T>& last = readers[heap[0]];
  while (!last.done()) {
    std::size_t count;
    const T* p = last.chunk(count);
    for (std::size_t i = 0; i < count; ++i) f(p[i]);
    last.consume(count);
  }
}

template <typename Sort>
class ExternalSorter {
 public:
  using T = typename Sort::Record;
  // Buffers are sorted on `threads` threads (for SortPairs).
  ExternalSorter(ScratchSpace& scratch, uint64_t memory_bytes, unsigned threads = 1)
      : scratch_(scratch), plan_(SortPlan::for_memory(memory_bytes, sizeof(T))), threads_(threads) {}

  // Allocates the buffer for `expected` records at once (at most a run), so it never reallocates.
  void reserve(uint64_t expected) {
    buffer_.reserve(static_cast<std::size_t>(std::min(expected, plan_.buffer_records)));
  }
  void add(const T& record) {
    if (buffer_.size() == room_) make_room();
    buffer_.push_back(record);
  }
  uint64_t added() const { return added_ + buffer_.size(); }
  // Sorts the last buffer; with runs, spills it and merges down to at most fan_in runs.
  void finish();
  bool external() const { return !runs_.empty(); }
  std::size_t run_count() const { return runs_.size(); }  // runs open
  uint64_t runs_written() const { return runs_written_; }
  // Records in ascending order (repeats removed within a run for SortPairs; across runs they stay).
  template <typename F>
  void for_each(F&& f) const;
  // The records in ascending order when no run was spilled (after finish(); repeats removed for
  // SortPairs), for readers that split them among threads.
  std::span<const T> sorted_in_memory() const { return {buffer_.data(), runs_.empty() ? in_memory_ : 0}; }
  // Frees the buffer and the runs.
  void clear() {
    decltype(buffer_)().swap(buffer_);
    room_ = 0;
    runs_.clear();
  }

 private:
  // Room for the records to come: the buffer grown (or spilled) when full, and its next stretch
  // faulted in on the sorter's threads (format::populate) where the adding thread would fault each
  // page in by itself.
  void make_room() {
    if (buffer_.size() == buffer_.capacity()) grow();
    const std::size_t stretch = (std::size_t{32} << 20) * threads_ / sizeof(T);
    room_ = std::min(buffer_.capacity(), buffer_.size() + stretch);
    format::populate(buffer_.data() + buffer_.size(), (room_ - buffer_.size()) * sizeof(T), threads_);
  }
  void grow() {
    if (buffer_.size() >= plan_.buffer_records) {
      spill();
      return;
    }
    buffer_.reserve(static_cast<std::size_t>(
        std::min<uint64_t>(std::max<std::size_t>(2 * buffer_.size(), 4096), plan_.buffer_records)));
  }
  std::size_t sort_buffer() {
    // Not zeroed: the sort overwrites it (zeroing cost a pass over memory, on one thread).
    format::HugeBuffer<T> scratch(buffer_.size());
    return Sort::sort(buffer_.span(), scratch.span(), threads_);
  }
  void spill() {
    const std::size_t kept = sort_buffer();
    auto file = std::make_unique<TempFile>(scratch_);
    file->append(buffer_.data(), kept * sizeof(T));
    added_ += buffer_.size();
    buffer_.clear();
    buffer_.reserve(static_cast<std::size_t>(plan_.buffer_records));  // one allocation from now on
    room_ = 0;
    runs_.push_back({std::move(file), 0});
    ++runs_written_;
    // fan_in runs of one level: merged into one of the next (a carry, as in counting), so at
    // most fan_in - 1 runs of each level stay open: a few dozen descriptors, not one per run.
    while (runs_.size() >= plan_.fan_in && runs_[runs_.size() - plan_.fan_in].level == runs_.back().level)
      merge_last(plan_.fan_in);
  }
  // The newest `count` runs merged into one run, one level above the highest of them.
  void merge_last(std::size_t count) {
    const std::size_t first = runs_.size() - count;
    std::vector<RunReader<T>> readers;
    unsigned level = 0;
    for (std::size_t i = first; i < runs_.size(); ++i) {
      readers.emplace_back(*runs_[i].file, plan_.read_buffer_records);
      level = std::max(level, runs_[i].level + 1);
    }
    auto file = std::make_unique<TempFile>(scratch_);
    {
      RunWriter<T> out(*file, plan_.read_buffer_records);
      merge_readers(readers, [&](const T& r) { out.add(r); });
      out.flush();
    }
    readers.clear();
    runs_.erase(runs_.begin() + static_cast<std::ptrdiff_t>(first), runs_.end());
    runs_.push_back({std::move(file), level});
    ++runs_written_;
  }

  ScratchSpace& scratch_;
  SortPlan plan_;
  unsigned threads_;
  format::HugeBuffer<T> buffer_;
  std::size_t room_ = 0;       // records the buffer takes before make_room
  std::size_t in_memory_ = 0;  // sorted records of buffer_ after finish() without runs
  struct Run {
    std::unique_ptr<TempFile> file;
    unsigned level;  // merges its records went through
  };
  std::vector<Run> runs_;  // levels descending: the newest, smallest runs last
  uint64_t added_ = 0, runs_written_ = 0;
};

template <typename Sort>
void ExternalSorter<Sort>::finish() {
  if (runs_.empty()) {
    in_memory_ = sort_buffer();
    return;
  }
  if (!buffer_.empty()) spill();
  decltype(buffer_)().swap(buffer_);
  room_ = 0;
  // Down to fan_in runs, the smallest (newest) merged first: each merge takes as many as leaves
  // exactly fan_in when it can.
  while (runs_.size() > plan_.fan_in) merge_last(std::min(plan_.fan_in, runs_.size() - plan_.fan_in + 1));
}

template <typename Sort>
template <typename F>
void ExternalSorter<Sort>::for_each(F&& f) const {
  if (runs_.empty()) {
    for (std::size_t i = 0; i < in_memory_; ++i) f(buffer_[i]);
    return;
  }
  std::vector<RunReader<T>> readers;
  for (const Run& run : runs_) readers.emplace_back(*run.file, plan_.read_buffer_records);
  merge_readers(readers, f);
}

}  // namespace simdex::writer
