#include "cli/parallel_pair_lines.h"

#include <algorithm>
#include <array>
#include <cstring>
#include <exception>
#include <future>
#include <optional>
#include <utility>
#include <vector>

#include "cli/lines.h"
#include "format/run_tasks.h"
#include "io/line_blocks.h"

namespace simdex::cli {

namespace {

// A range of whole lines of a block, with the pairs parsed from it.
struct Range {
  std::string_view lines;
  uint64_t lines_before = 0;  // lines of the input before the range
  std::vector<std::pair<uint64_t, uint64_t>> pairs;
  std::exception_ptr error;  // the range's first bad line
};

void parse_range(Range& r, const std::string& name, std::optional<bool> with_ids) {
  r.pairs.clear();
  r.error = nullptr;
  try {
    PairReader reader(name, r.lines_before, with_ids);
    uint64_t line_number = r.lines_before;
    io::for_each_line(r.lines, [&](std::string_view line) {
      if (line.size() > io::max_pair_line_bytes)
        io::throw_line_too_long(name, line_number + 1, io::max_pair_line_bytes);
      ++line_number;
      if (auto pair = reader.parse(line)) r.pairs.push_back(*pair);
    });
  } catch (...) {
    r.error = std::current_exception();
  }
}

// One block of the input: its whole lines split into a range per thread, parsed.
struct Block {
  io::LineBlock lines;
  std::vector<Range> ranges;
};

// Reads the input block by block, each read, counted and parsed on the pool's threads.
class BlockReader {
 public:
  BlockReader(io::InputStream& in, unsigned threads, uint64_t memory)
      : in_(in),
        pool_(threads),
        // A block needs room for one line of the longest kind; its pairs take at most 8 times its
        // bytes (16-byte pairs of 2-byte lines). Up to 4 MiB a thread: two blocks are in flight.
        lines_reader_(in,
                      static_cast<std::size_t>(std::clamp<uint64_t>(
                          memory / 256, uint64_t{64} << 10,
                          std::max<uint64_t>(uint64_t{8} << 20, (uint64_t{4} << 20) * threads))),
                      io::max_pair_line_bytes, 0, threads) {}

  // Fills b with the next block; `last` is the block read before (its cut line starts b).
  void load(Block& b, const Block* last) {
    // Ranges of 64 KiB at least (2,000 lines, tens of microseconds): more threads than that would
    // spend their time waking (--threads 4096 on two cores started 2,000).
    lines_reader_.read(b.lines, last ? &last->lines : nullptr, pool_.threads(), std::size_t{64} << 10);
    if (b.lines.line_too_long()) io::throw_line_too_long(in_.name(), lines_ + 1, io::max_pair_line_bytes);
    const std::vector<std::string_view>& ranges = b.lines.ranges();
    for (std::size_t i = 0; !with_ids_ && i < ranges.size(); ++i)  // until the first data line
      io::for_each_line(ranges[i], [&](std::string_view line) {
        if (!with_ids_) with_ids_ = PairReader::has_id(line);
      });
    // The lines of each range counted at once, then the ranges parsed at once knowing their first
    // line's number.
    b.ranges.resize(ranges.size());
    pool_.run(ranges.size(), [&](std::size_t i, unsigned, std::atomic<uint64_t>&) {
      b.ranges[i].lines = ranges[i];
      b.ranges[i].lines_before = static_cast<uint64_t>(std::count(ranges[i].begin(), ranges[i].end(), '\n'));
    });
    for (Range& r : b.ranges) {
      const uint64_t count = r.lines_before;
      r.lines_before = lines_;
      lines_ += count;
    }
    pool_.run(b.ranges.size(), [&](std::size_t i, unsigned, std::atomic<uint64_t>&) {
      parse_range(b.ranges[i], in_.name(), with_ids_);
    });
  }

 private:
  io::InputStream& in_;
  format::TaskPool pool_;
  io::LineBlockReader lines_reader_;
  uint64_t lines_ = 0;            // lines before the next block
  std::optional<bool> with_ids_;  // decided by the input's first data line
};

}  // namespace

void for_each_pair_line_parallel(io::InputStream& in, unsigned threads, uint64_t memory, Progress& progress,
                                 std::string_view stage, const std::function<void(uint64_t, uint64_t)>& fn) {
  BlockReader reader(in, threads, memory);
  // While the caller's thread hands one block's pairs to fn (a build adds them to its sort buffer),
  // the workers read and parse the next (on a pool kept from block to block): reading 100M on 16
  // threads went from 2.2 s at 5.5 cores to 1.35 s at 8 (bench/RESULTS.md). The adding itself is
  // cheap: 0.35% of a 1-thread build's samples.
  std::array<Block, 2> blocks;
  reader.load(blocks[0], nullptr);
  for (std::size_t i = 0;; i ^= 1) {
    Block& ready = blocks[i];
    std::future<void> next;
    // (No thread to be had: the next block is read after this one's pairs are handed on.)
    if (!ready.lines.at_end())
      next = format::async_or_deferred([&reader, &blocks, &ready, i] { reader.load(blocks[i ^ 1], &ready); });
    // In input order; a range's error after the pairs before it (the first bad line of the file).
    // The next block's reading ends before `next` goes out of scope (std::async's future waits).
    for (const Range& r : ready.ranges) {
      if (r.error) std::rethrow_exception(r.error);
      for (const auto& [fingerprint, id] : r.pairs) fn(fingerprint, id);
    }
    if (!next.valid()) break;
    next.get();
    progress.update(stage, in.bytes_read(), in.size(), Progress::Unit::bytes);
  }
  progress.update(stage, in.bytes_read(), in.size(), Progress::Unit::bytes);
}

}  // namespace simdex::cli
