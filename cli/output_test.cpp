// cli::Output written to a pipe, read as it goes: every line reaches the reader whole and in order,
// whatever its length (short lines, lines past the 64 KiB flush, past kLineHeld), and an error
// keeps the lines printed whole and drops the one it cut.
#include "cli/output.h"

#include <doctest/doctest.h>
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

namespace {

// A pipe whose write end an Output opens by /dev/fd/N, and a thread reading it to its end.
class Drain {
 public:
  Drain() {
    REQUIRE(::pipe2(fds_, O_CLOEXEC) == 0);
    reader_ = std::thread([this] {
      char chunk[1 << 16];
      for (ssize_t n; (n = ::read(fds_[0], chunk, sizeof chunk)) > 0;)
        got_.append(chunk, static_cast<std::size_t>(n));
    });
  }
  ~Drain() {
    close_write_end();
    if (reader_.joinable()) reader_.join();
    ::close(fds_[0]);
  }
  std::string path() const { return "/dev/fd/" + std::to_string(fds_[1]); }
  // Once the Output that opened path() is gone: everything it wrote.
  const std::string& bytes() {
    close_write_end();
    reader_.join();
    return got_;
  }

 private:
  void close_write_end() {
    if (fds_[1] >= 0) ::close(fds_[1]);
    fds_[1] = -1;
  }
  int fds_[2] = {-1, -1};
  std::thread reader_;
  std::string got_;
};

// `count` ids from `first` up, as append_list prints them and as text.
std::vector<std::uint64_t> ids(std::uint64_t first, std::size_t count, std::string& text) {
  std::vector<std::uint64_t> v(count);
  for (std::size_t i = 0; i < count; ++i) {
    v[i] = first + i * 7919;
    text += (i ? "," : "") + std::to_string(v[i]);
  }
  return v;
}

}  // namespace

TEST_CASE("lines of every length reach the reader whole, in order, the bytes printed") {
  std::mt19937_64 rng(5);
  // Line lengths in ids: short ones, ones near the 64 KiB flush, past kLineHeld (1 MiB), 3M ids.
  std::vector<std::size_t> lengths = {1, 2, 9000, 9400, 150000, 3000000, 1, 0, 140000};
  for (int i = 0; i < 3000; ++i) lengths.push_back(rng() % 40);
  for (int i = 0; i < 20; ++i) lengths.push_back(rng() % 200000);
  std::shuffle(lengths.begin(), lengths.end(), rng);
  Drain drain;
  std::string want;
  {
    simdex::cli::Output out(drain.path());
    for (std::size_t i = 0; i < lengths.size(); ++i) {
      out.print("{}\t", i);
      want += std::to_string(i) + "\t";
      out.append_list(ids(rng() % 1000000, lengths[i], want));
      out.print("\n");
      want += "\n";
    }
    out.close();
  }
  const std::string& got = drain.bytes();
  CHECK(got.size() == want.size());
  CHECK(got == want);
}

TEST_CASE("an error while a line is printed keeps the lines printed whole and drops the one it cut") {
  // The line cut is held (under kLineHeld) while the lines before it were searched and written in
  // steps: 100 lines of ids, then 100,000 ids of a line that is not ended. Or first a line just
  // past kLineHeld, written as it came (the buffer emptied mid-line), then 3 lines held in less
  // than the 64 KiB that start a search: the search after the emptying starts anew.
  for (const bool long_line_first : {false, true})
    for (const std::size_t cut_ids : {std::size_t{10}, std::size_t{100000}}) {
      CAPTURE(long_line_first);
      CAPTURE(cut_ids);
      Drain drain;
      std::string want;
      try {
        simdex::cli::Output out(drain.path());
        if (long_line_first) {
          std::string line;
          std::vector<std::uint64_t> v;
          for (std::uint64_t x = 7; line.size() <= simdex::cli::Output::kLineHeld + 8192; x += 7919) {
            line += (v.empty() ? "" : ",") + std::to_string(x);
            v.push_back(x);
          }
          out.append_list(v);
          out.print("\n");
          want += line + "\n";
        }
        for (int i = 0; i < (long_line_first ? 3 : 100); ++i) {
          out.append_list(ids(static_cast<std::uint64_t>(i) << 20, 500, want));
          out.print("\n");
          want += "\n";
        }
        std::string cut;
        out.append_list(ids(1, cut_ids, cut));
        throw std::runtime_error("a key that cannot be read");
      } catch (const std::runtime_error&) {
      }
      CHECK(drain.bytes() == want);
    }
}
