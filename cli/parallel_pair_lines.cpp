#include "cli/parallel_pair_lines.h"

#include <algorithm>
#include <cstring>
#include <exception>
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

}  // namespace

void for_each_pair_line_parallel(io::InputStream& in, unsigned threads, uint64_t memory, Progress& progress,
                                 std::string_view stage, const std::function<void(uint64_t, uint64_t)>& fn) {
  // A block needs room for one line of the longest kind; its pairs take at most 8 times its bytes
  // (16-byte pairs of 2-byte lines). Up to 4 MiB a thread: each block starts the threads anew.
  const std::size_t block_bytes = static_cast<std::size_t>(
      std::clamp<uint64_t>(memory / 128, uint64_t{64} << 10,
                           std::max<uint64_t>(uint64_t{8} << 20, (uint64_t{4} << 20) * threads)));
  std::vector<char> block(block_bytes);
  std::vector<Range> ranges(threads);
  std::size_t held = 0;          // bytes of a cut line carried from the last block
  uint64_t lines = 0;            // lines before the block
  std::optional<bool> with_ids;  // decided by the input's first data line
  for (bool at_end = false; !at_end;) {
    const std::size_t got = in.read_parallel(block.data() + held, block_bytes - held, threads);
    at_end = got < block_bytes - held;
    const std::size_t filled = held + got;
    // The block's whole lines: up to its last '\n', or everything at the input's end.
    std::size_t cut = filled;
    if (!at_end) {
      const auto* last = static_cast<const char*>(memrchr(block.data(), '\n', filled));
      if (last == nullptr) io::throw_line_too_long(in.name(), lines + 1, io::max_pair_line_bytes);
      cut = static_cast<std::size_t>(last - block.data()) + 1;
    }
    const char* begin = block.data();
    const char* end = begin + cut;
    for (const char* p = begin; !with_ids && p < end;) {  // until the first data line
      const char* next = next_line_start(p, end);
      with_ids =
          PairReader::has_id(std::string_view(p, static_cast<std::size_t>(next - p - (next[-1] == '\n'))));
      p = next;
    }
    // One range per thread, cut after the '\n' nearest past an even split; the lines of each
    // counted at once, then the ranges parsed at once knowing their first line's number.
    const char* start = begin;
    for (std::size_t i = 0; i < ranges.size(); ++i) {
      const char* split = begin + cut * (i + 1) / ranges.size();
      const char* stop = split == begin ? begin : next_line_start(split - 1, end);
      ranges[i].begin = start;
      ranges[i].end = std::max(start, stop);
      start = ranges[i].end;
    }
    format::run_tasks(threads, ranges.size(), [&](std::size_t i, unsigned, std::atomic<uint64_t>&) {
      ranges[i].lines_before = static_cast<uint64_t>(std::count(ranges[i].begin, ranges[i].end, '\n'));
    });
    for (Range& r : ranges) {
      const uint64_t count = r.lines_before;
      r.lines_before = lines;
      lines += count;
    }
    format::run_tasks(threads, ranges.size(), [&](std::size_t i, unsigned, std::atomic<uint64_t>&) {
      parse_range(ranges[i], in.name(), with_ids);
    });
    for (const Range& r : ranges) {
      if (r.error) std::rethrow_exception(r.error);
      for (const auto& [fingerprint, id] : r.pairs) fn(fingerprint, id);
    }
    held = filled - cut;
    std::memmove(block.data(), block.data() + cut, held);
    progress.update(stage, in.bytes_read(), in.size(), Progress::Unit::bytes);
  }
}

}  // namespace simdex::cli
