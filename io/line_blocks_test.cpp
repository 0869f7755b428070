// LineBlockReader: the ranges of its blocks, in order, are the input's bytes, each cut after a '\n'
// (but the input's last), whatever the block size, range count and line lengths; a line longer
// than the bound stops the reading with a block that says so.
#include "io/line_blocks.h"

#include <doctest/doctest.h>

#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "simdex/error.h"

using simdex::io::InputStream;
using simdex::io::LineBlock;
using simdex::io::LineBlockReader;

namespace {

struct Reading {
  std::string bytes;  // the ranges' bytes, one after another
  std::vector<std::string> lines;
  bool line_too_long = false;
  std::size_t blocks = 0;
};

Reading read_blocks(const std::string& input, std::size_t block_bytes, std::size_t max_line_bytes,
                    std::size_t ranges) {
  std::istringstream raw(input);
  InputStream in(raw, "mem");
  LineBlockReader reader(in, block_bytes, max_line_bytes, 16, 2);
  LineBlock blocks[2];
  Reading r;
  for (std::size_t i = 0;; i ^= 1) {
    reader.read(blocks[i], r.blocks == 0 ? nullptr : &blocks[i ^ 1], ranges);
    ++r.blocks;
    const LineBlock& b = blocks[i];
    CHECK(b.ranges().size() <= ranges);
    for (std::size_t k = 0; k < b.ranges().size(); ++k) {
      const std::string_view range = b.ranges()[k];
      REQUIRE(!range.empty());
      // Every range but the input's last ends a line.
      if (!b.at_end() || k + 1 < b.ranges().size()) CHECK(range.back() == '\n');
      r.bytes += range;
      simdex::io::for_each_line(range, [&](std::string_view line) { r.lines.emplace_back(line); });
    }
    r.line_too_long = b.line_too_long();
    if (b.line_too_long()) CHECK(b.ranges().empty());
    if (b.at_end()) return r;
  }
}

std::vector<std::string> lines_of(const std::string& s) {
  std::vector<std::string> lines;
  simdex::io::for_each_line(s, [&](std::string_view line) { lines.emplace_back(line); });
  return lines;
}

}  // namespace

TEST_CASE("the ranges of the blocks are the input, cut at line ends, at any block size and range count") {
  std::mt19937_64 rng(17);
  for (int round = 0; round < 300; ++round) {
    std::string input;
    for (std::size_t n = rng() % 60; n > 0; --n)
      input +=
          std::string(rng() % 4 == 0 ? rng() % 300 : rng() % 12, 'a' + static_cast<char>(rng() % 26)) + "\n";
    if (rng() % 2 && !input.empty()) input.pop_back();  // the last line without its '\n'
    const std::size_t block = 1 + rng() % 200, ranges = 1 + rng() % 9;
    CAPTURE(round);
    CAPTURE(block);
    const Reading r = read_blocks(input, block, 1000, ranges);
    CHECK(!r.line_too_long);
    CHECK(r.bytes == input);
    CHECK(r.lines == lines_of(input));
  }
}

TEST_CASE("a line over the bound: the blocks before it, then one that says so; at the bound, a line") {
  const std::string before = "one\ntwo\n";
  for (std::size_t block : {1, 3, 8, 50, 1000}) {
    CAPTURE(block);
    const Reading over = read_blocks(before + std::string(101, 'x') + "\nthree\n", block, 100, 2);
    CHECK(over.line_too_long == (block <= 101));  // a block larger holds the line and its end
    if (over.line_too_long) CHECK(over.lines == lines_of(before));
    const Reading at = read_blocks(before + std::string(100, 'x') + "\nthree\n", block, 100, 2);
    CHECK(!at.line_too_long);
    CHECK(at.lines.size() == 4);
    const Reading last = read_blocks(before + std::string(100, 'x'), block, 100, 2);
    CHECK(!last.line_too_long);
    CHECK(last.lines.size() == 3);
  }
}

TEST_CASE("an empty input: one block, no ranges") {
  const Reading r = read_blocks("", 64, 100, 4);
  CHECK(r.blocks == 1);
  CHECK(r.bytes.empty());
}
