#include "cli/parallel_pair_lines.h"

#include <algorithm>
#include <array>
#include <cstring>
#include <exception>
#include <future>
#include <optional>
#include <system_error>
#include <utility>
#include <vector>

#include "cli/lines.h"
#include "format/run_tasks.h"

namespace simdex::cli {

namespace {

// A range of whole lines of a block, with the pairs parsed from it.
struct Range {
  const char* begin = nullptr;
  const char* end = nullptr;
  uint64_t lines_before = 0;  // lines of the input before `begin`
  std::vector<std::pair<uint64_t, uint64_t>> pairs;
  std::exception_ptr error;  // the range's first bad line
};

// fn(line) for each line of [p, end): lines end in '\n' except perhaps the input's last one.
template <class Fn>
void for_each_line(const char* p, const char* end, Fn&& fn) {
  while (p < end) {
    const auto* nl = static_cast<const char*>(std::memchr(p, '\n', static_cast<std::size_t>(end - p)));
    const char* line_end = nl != nullptr ? nl : end;
    fn(std::string_view(p, static_cast<std::size_t>(line_end - p)));
    p = line_end + 1;
  }
}

// Past the line that holds `p` (or `end`).
const char* next_line_start(const char* p, const char* end) {
  const auto* nl = static_cast<const char*>(std::memchr(p, '\n', static_cast<std::size_t>(end - p)));
  return nl != nullptr ? nl + 1 : end;
}

void parse_range(Range& r, const std::string& name, std::optional<bool> with_ids) {
  r.pairs.clear();
  r.error = nullptr;
  try {
    PairReader reader(name, r.lines_before, with_ids);
    uint64_t line_number = r.lines_before;
    for_each_line(r.begin, r.end, [&](std::string_view line) {
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
  std::vector<char> bytes;
  std::vector<Range> ranges;
  std::size_t cut = 0, filled = 0;  // bytes of whole lines; bytes read (the rest a cut line)
  bool at_end = false;
};

// Reads the input block by block, each read, counted and parsed on the pool's threads.
class BlockReader {
 public:
  BlockReader(io::InputStream& in, unsigned threads, uint64_t memory)
      : in_(in),
        // A block needs room for one line of the longest kind; its pairs take at most 8 times its
        // bytes (16-byte pairs of 2-byte lines). Up to 4 MiB a thread: two blocks are in flight.
        block_bytes_(static_cast<std::size_t>(
            std::clamp<uint64_t>(memory / 256, uint64_t{64} << 10,
                                 std::max<uint64_t>(uint64_t{8} << 20, (uint64_t{4} << 20) * threads)))),
        pool_(threads) {}

  // Fills b with the next block; `last` is the block read before (its cut line starts b).
  void load(Block& b, const Block* last) {
    b.bytes.resize(block_bytes_);
    b.ranges.resize(pool_.threads());
    const std::size_t held = last ? last->filled - last->cut : 0;
    if (held > 0) std::memcpy(b.bytes.data(), last->bytes.data() + last->cut, held);
    const std::size_t got = in_.read_parallel(b.bytes.data() + held, block_bytes_ - held, pool_.threads());
    b.at_end = got < block_bytes_ - held;
    b.filled = held + got;
    // The block's whole lines: up to its last '\n', or everything at the input's end.
    b.cut = b.filled;
    if (!b.at_end) {
      const auto* nl = static_cast<const char*>(memrchr(b.bytes.data(), '\n', b.filled));
      if (nl == nullptr) io::throw_line_too_long(in_.name(), lines_ + 1, io::max_pair_line_bytes);
      b.cut = static_cast<std::size_t>(nl - b.bytes.data()) + 1;
    }
    const char* begin = b.bytes.data();
    const char* end = begin + b.cut;
    for (const char* p = begin; !with_ids_ && p < end;) {  // until the first data line
      const char* next = next_line_start(p, end);
      with_ids_ =
          PairReader::has_id(std::string_view(p, static_cast<std::size_t>(next - p - (next[-1] == '\n'))));
      p = next;
    }
    // One range per thread, cut after the '\n' nearest past an even split; the lines of each
    // counted at once, then the ranges parsed at once knowing their first line's number.
    const char* start = begin;
    for (std::size_t i = 0; i < b.ranges.size(); ++i) {
      const char* split = begin + b.cut * (i + 1) / b.ranges.size();
      const char* stop = split == begin ? begin : next_line_start(split - 1, end);
      b.ranges[i].begin = start;
      b.ranges[i].end = std::max(start, stop);
      start = b.ranges[i].end;
    }
    pool_.run(b.ranges.size(), [&](std::size_t i, unsigned, std::atomic<uint64_t>&) {
      b.ranges[i].lines_before = static_cast<uint64_t>(std::count(b.ranges[i].begin, b.ranges[i].end, '\n'));
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
  std::size_t block_bytes_;
  format::TaskPool pool_;
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
    if (!ready.at_end) {
      auto load_next = [&reader, &blocks, &ready, i] { reader.load(blocks[i ^ 1], &ready); };
      try {
        next = std::async(std::launch::async, load_next);
      } catch (const std::system_error&) {  // no thread to be had: the next block after this one
        next = std::async(std::launch::deferred, load_next);
      }
    }
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
