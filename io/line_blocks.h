// An input read in blocks of whole lines, for parsing on many threads. A block ends after its last
// '\n' (the line cut there begins the next block) and is split into ranges of whole lines, so that
// each range can be parsed on a thread of its own and the results still be put in input order.
// What the lines mean, and the lines' numbers, are the caller's: a range's lines can be counted as
// they are parsed, and the counts added up in input order.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string_view>
#include <vector>

#include "io/input_stream.h"

namespace simdex::io {

// fn(line) for each line of `bytes`, without its '\n'; a last line without '\n' is a line.
template <class Fn>
void for_each_line(std::string_view bytes, Fn&& fn) {
  const char* p = bytes.data();
  const char* const end = p + bytes.size();
  while (p < end) {
    const auto* nl = static_cast<const char*>(std::memchr(p, '\n', static_cast<std::size_t>(end - p)));
    const char* line_end = nl != nullptr ? nl : end;
    fn(std::string_view(p, static_cast<std::size_t>(line_end - p)));
    p = line_end + 1;
  }
}

class LineBlock {
 public:
  // Ranges of whole lines, in input order, together the block's lines; none empty.
  const std::vector<std::string_view>& ranges() const { return ranges_; }
  bool at_end() const { return at_end_; }  // the input's last block (or one holding a line too long)
  // The block holds no line end but max_line_bytes + 1 bytes of a line: that line is too long (the
  // caller, which knows its number, says so). Such a block has no ranges and is the last.
  bool line_too_long() const { return line_too_long_; }

 private:
  friend class LineBlockReader;
  std::vector<char> bytes_;
  std::vector<std::string_view> ranges_;
  std::size_t cut_ = 0, filled_ = 0;  // bytes of whole lines; bytes read (the rest: the cut line)
  bool at_end_ = false, line_too_long_ = false;
};

class LineBlockReader {
 public:
  // Blocks of block_bytes; a line longer than that grows its block, up to max_line_bytes + 1 bytes.
  // `padding` bytes past a block's end may be read (simdjson reads past the end of what it parses).
  // A plain file is read by read_threads threads at once (InputStream::read_parallel).
  LineBlockReader(InputStream& in, std::size_t block_bytes, std::size_t max_line_bytes, std::size_t padding,
                  unsigned read_threads);

  // Reads the next block into b, the cut line of `last` (the block read before b; null for the
  // first) first, and splits its lines into at most `ranges` ranges of about equal bytes, and of
  // about `least_range_bytes` at least (work too small to be worth a thread's wake-up).
  // Throws what reading throws (InputStream::stream).
  void read(LineBlock& b, const LineBlock* last, std::size_t ranges, std::size_t least_range_bytes = 1);

 private:
  InputStream& in_;
  std::size_t block_bytes_, max_line_bytes_, padding_;
  unsigned read_threads_;
};

}  // namespace simdex::io
