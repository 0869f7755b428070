// InputStream: plain, gzip and zstd inputs decode; a truncated or corrupt compressed input is an
// error naming the input at every cut, never a short read; lines are bounded.
#include "io/input_stream.h"

#include <doctest/doctest.h>
#include <zlib.h>
#include <zstd.h>

#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "simdex/error.h"

namespace {

using simdex::io::InputStream;

// A gzip member of `text`; `header_fields`: with every optional header field (FEXTRA, FNAME,
// FCOMMENT, FHCRC), as some tools write them.
std::string gzip(const std::string& text, bool header_fields = false) {
  z_stream z{};
  REQUIRE(deflateInit2(&z, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) == Z_OK);
  gz_header head{};
  Bytef extra[] = {'X', 'Y', 2, 0, 'a', 'b'};  // one subfield: id "XY", 2 bytes
  char name[] = "corpus.jsonl", comment[] = "a comment";
  if (header_fields) {
    head.extra = extra;
    head.extra_len = sizeof extra;
    head.name = reinterpret_cast<Bytef*>(name);
    head.comment = reinterpret_cast<Bytef*>(comment);
    head.hcrc = 1;
    REQUIRE(deflateSetHeader(&z, &head) == Z_OK);
  }
  std::string out(deflateBound(&z, text.size()) + 64, '\0');
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(text.data()));
  z.avail_in = static_cast<uInt>(text.size());
  z.next_out = reinterpret_cast<Bytef*>(out.data());
  z.avail_out = static_cast<uInt>(out.size());
  REQUIRE(deflate(&z, Z_FINISH) == Z_STREAM_END);
  out.resize(z.total_out);
  deflateEnd(&z);
  return out;
}

std::string zstd(const std::string& text) {  // with a content checksum, as the zstd tool writes
  ZSTD_CCtx* c = ZSTD_createCCtx();
  ZSTD_CCtx_setParameter(c, ZSTD_c_checksumFlag, 1);
  std::string out(ZSTD_compressBound(text.size()), '\0');
  const std::size_t n = ZSTD_compress2(c, out.data(), out.size(), text.data(), text.size());
  ZSTD_freeCCtx(c);
  REQUIRE(!ZSTD_isError(n));
  out.resize(n);
  return out;
}

// Some fingerprint lines, varied enough that the compressed stream is a few hundred bytes.
std::string sample_lines(int count) {
  std::string s;
  uint64_t x = 0x9e3779b97f4a7c15ULL;
  for (int i = 0; i < count; ++i) {
    x ^= x << 13, x ^= x >> 7, x ^= x << 17;
    s += std::to_string(x) + "\t" + std::to_string(i) + "\n";
  }
  return s;
}

// All of the input's decoded lines, joined with '\n' after each.
std::string read_all(const std::string& bytes, const std::string& name = "mem") {
  std::istringstream raw(bytes);
  InputStream in(raw, name);
  std::string line, all;
  while (in.next_line(line)) all += line + "\n";
  return all;
}

// Every proper prefix from the magic bytes on must fail naming the input, except those that end
// exactly at a frame boundary (listed), which must give exactly the lines of the frames before.
void check_truncations(const std::string& bytes, const std::vector<std::size_t>& boundaries,
                       const std::vector<std::string>& decoded_at, std::size_t magic) {
  for (std::size_t cut = magic; cut < bytes.size(); ++cut) {
    CAPTURE(cut);
    std::size_t frame = boundaries.size();
    for (std::size_t f = 0; f < boundaries.size(); ++f)
      if (boundaries[f] == cut) frame = f;
    if (frame < boundaries.size()) {
      CHECK(read_all(bytes.substr(0, cut)) == decoded_at[frame]);
      continue;
    }
    try {
      read_all(bytes.substr(0, cut), "cut.gz");
      FAIL("a truncated stream was accepted");
    } catch (const simdex::Error& e) {
      CHECK(e.code() == simdex::errc::input);
      CHECK(std::string(e.what()).find("cut.gz: truncated") != std::string::npos);
    }
  }
}

void check_corruptions(const std::string& bytes, std::size_t header) {
  int detected = 0, tried = 0;
  for (std::size_t at = header; at < bytes.size(); at += 7, ++tried) {
    std::string bad = bytes;
    bad[at] = static_cast<char>(bad[at] ^ 0x5a);
    try {
      read_all(bad, "bad");
    } catch (const simdex::Error& e) {
      CHECK(std::string(e.what()).find("bad: ") != std::string::npos);
      ++detected;
    }
  }
  CHECK(detected == tried);  // the checksums (CRC-32, XXH64) catch what the structure does not
}

}  // namespace

TEST_CASE("plain input: a last line without a newline is a line; CRLF kept for the caller") {
  CHECK(read_all("1\n2\n3") == "1\n2\n3\n");
  CHECK(read_all("1\n2\n") == "1\n2\n");
  CHECK(read_all("") == "");
  CHECK(read_all("\n\n") == "\n\n");
  CHECK(read_all("a\r\n") == "a\r\n");
}

TEST_CASE("gzip and zstd decode, members and frames one after another too") {
  const std::string a = sample_lines(300), b = sample_lines(7);
  CHECK(read_all(gzip(a)) == a);
  CHECK(read_all(zstd(a)) == a);
  CHECK(read_all(gzip(a) + gzip(b)) == a + b);
  CHECK(read_all(zstd(a) + zstd(b)) == a + b);
  CHECK(read_all(gzip("")) == "");
  CHECK(read_all(gzip(a, true) + gzip(b, true)) == a + b);
  // Megabytes, members of every size: the decoders' 64 KiB buffers end anywhere in a member.
  std::string big, big_gz, big_zst;
  for (int i = 0; i < 40; ++i) {
    const std::string part = sample_lines(i * i * 37 + i);
    big += part;
    big_gz += gzip(part, i % 3 == 0);
    big_zst += zstd(part);
  }
  CHECK(read_all(big_gz) == big);
  CHECK(read_all(big_zst) == big);
}

TEST_CASE("a truncated gzip stream is an error at every cut") {
  const std::string a = sample_lines(300), b = sample_lines(5);
  check_truncations(gzip(a), {}, {}, 2);
  const std::string two = gzip(a) + gzip(b);
  check_truncations(two, {gzip(a).size()}, {a}, 2);
}

TEST_CASE("a truncated zstd stream is an error at every cut; the bare magic too") {
  const std::string a = sample_lines(300), b = sample_lines(5);
  check_truncations(zstd(a), {}, {}, 4);
  const std::string two = zstd(a) + zstd(b);
  check_truncations(two, {zstd(a).size()}, {a}, 4);
  CHECK_THROWS_AS(read_all(std::string("\x28\xb5\x2f\xfd", 4)), simdex::Error);
}

TEST_CASE("corrupt bytes in a gzip or zstd stream are an error naming the input") {
  const std::string a = sample_lines(300);
  check_corruptions(gzip(a), 10);
  check_corruptions(zstd(a), 4);
  try {
    read_all(gzip(a) + "garbage", "g.gz");
    FAIL("trailing garbage accepted");
  } catch (const simdex::Error& e) {
    CHECK(std::string(e.what()).find("g.gz: corrupt gzip stream") != std::string::npos);
  }
}

TEST_CASE("a plain text that starts with zstd's magic number is told as such, a later bad frame not") {
  auto message = [](const std::string& bytes) {
    try {
      read_all(bytes, "y.txt");
    } catch (const simdex::Error& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  const std::string hint = "it starts with zstd's magic number";
  CHECK(message("\x28\xb5\x2f\xfd abc def").find("y.txt: corrupt zstd stream") != std::string::npos);
  CHECK(message("\x28\xb5\x2f\xfd abc def").find(hint) != std::string::npos);
  const std::string a = sample_lines(300);
  CHECK(message(zstd(a) + "\x28\xb5\x2f\xfd abc def").find("corrupt zstd stream") != std::string::npos);
  CHECK(message(zstd(a) + "\x28\xb5\x2f\xfd abc def").find(hint) == std::string::npos);
}

TEST_CASE("a gzip member's bad trailer is told as such, after a bad line too; zero padding ends it") {
  // Over 64 KiB (a buffer): igzip reports the bad CRC-32 or length with the last bytes; read on
  // (check_rest() after a malformed line, as a command does), it reported trailing garbage instead.
  const std::string good = gzip(sample_lines(30000) + "not a number\n");
  REQUIRE(good.size() > (std::size_t{1} << 16));
  for (const std::size_t from_end : {5, 2}) {  // in the CRC-32, in the length
    std::string bad = good;
    bad[bad.size() - from_end] = static_cast<char>(bad[bad.size() - from_end] ^ 0xff);
    const std::string path = "input_stream_test_trailer.gz";
    std::ofstream(path, std::ios::binary) << bad;
    InputStream in(path);
    std::string line;
    try {
      simdex::io::reporting_corrupt_stream(in, [&] {
        while (in.next_line(line))
          if (line == "not a number") throw simdex::Error(simdex::errc::input, "a bad line");
      });
      FAIL("accepted");
    } catch (const simdex::Error& e) {
      CHECK(std::string(e.what()).find(path + ": corrupt gzip stream: incorrect data check") !=
            std::string::npos);
    }
    std::remove(path.c_str());
  }
  // Zero bytes after the last member are padding (gzip reads them so); anything after them is not.
  CHECK(read_all(good + std::string(100, '\0')) == sample_lines(30000) + "not a number\n");
  CHECK_THROWS_WITH_AS(read_all(good + std::string(100, '\0') + "x", "p.gz"),
                       doctest::Contains("p.gz: corrupt gzip stream: bytes after the last member"),
                       simdex::Error);
  CHECK_THROWS_WITH_AS(read_all(good + std::string(3, '\0') + good, "p.gz"),
                       doctest::Contains("p.gz: corrupt gzip stream: bytes after the last member"),
                       simdex::Error);
}

TEST_CASE("a line over the bound is an error naming the line") {
  const std::string input = "1\n" + std::string(5000, '7') + "\n3\n";
  std::istringstream raw(input);
  InputStream in(raw, "long.txt");
  std::string line;
  CHECK(in.next_line(line));
  try {
    in.next_line(line);
    FAIL("a 5000-byte line was accepted");
  } catch (const simdex::Error& e) {
    CHECK(std::string(e.what()).find("long.txt:2: line longer than 4096 bytes") != std::string::npos);
  }
  std::istringstream raw2(input);
  InputStream in2(raw2, "long.txt");
  CHECK(in2.next_line(line));
  CHECK(in2.next_line(line, 5000));
  CHECK(line.size() == 5000);
  CHECK(in2.next_line(line, 5000));
  CHECK(line == "3");
  CHECK(!in2.next_line(line));
}

TEST_CASE("read_line on any stream: the bound holds there too") {
  std::istringstream s("ab\ncdef\ng");
  std::string line;
  CHECK(simdex::io::read_line(s, line, 3) == simdex::io::LineResult::ok);
  CHECK(line == "ab");
  CHECK(simdex::io::read_line(s, line, 3) == simdex::io::LineResult::too_long);
}

TEST_CASE("a file's size and the bytes read of it (compressed bytes for a compressed file), for progress") {
  const std::string text = sample_lines(20000);
  for (const std::string& bytes : {text, gzip(text), zstd(text)}) {
    const std::string path = "input_stream_test_progress.tmp";
    {
      std::ofstream out(path, std::ios::binary);
      out << bytes;
    }
    InputStream in(path);
    CHECK(in.size() == bytes.size());
    std::string line, all;
    uint64_t last = 0;
    bool grew_midway = false;
    while (in.next_line(line)) {
      all += line + "\n";
      CHECK(in.bytes_read() >= last);
      grew_midway |= in.bytes_read() > 0 && in.bytes_read() < bytes.size();
      last = in.bytes_read();
    }
    CHECK(all == text);
    CHECK(in.bytes_read() == bytes.size());
    CHECK(grew_midway == (bytes.size() > (1u << 16)));  // read in 64 KiB pieces, not at once
    std::remove(path.c_str());
  }
}

TEST_CASE(
    "read_parallel gives the stream's next bytes, between lines read the usual way, at any thread count") {
  // 5 MB: pieces of 1 MiB and more read at once; compressed inputs go through the stream.
  const std::string text = sample_lines(300000);
  REQUIRE(text.size() > (std::size_t{4} << 20));
  for (const std::string& bytes : {text, gzip(text), zstd(text)}) {
    for (const unsigned threads : {1u, 3u, 8u}) {
      CAPTURE(bytes.size());
      CAPTURE(threads);
      const std::string path = "input_stream_test_parallel.tmp";
      {
        std::ofstream out(path, std::ios::binary);
        out << bytes;
      }
      {  // first thing read: nothing handed out yet (the get area still empty)
        InputStream first(path);
        std::vector<char> all(text.size() + 1);
        CHECK(first.read_parallel(all.data(), all.size(), threads) == text.size());
        CHECK(std::string(all.data(), text.size()) == text);
      }
      InputStream in(path);
      CHECK(in.plain_file() == (bytes.size() == text.size()));
      std::string line, all;
      REQUIRE(in.next_line(line));  // some bytes taken, more held in the stream's buffer
      all += line + "\n";
      std::vector<char> block(3 << 20);
      std::size_t got = in.read_parallel(block.data(), 100, threads);  // within the buffer
      all.append(block.data(), got);
      got = in.read_parallel(block.data(), block.size(), threads);  // past it
      CHECK(got == block.size());
      all.append(block.data(), got);
      REQUIRE(in.next_line(line));  // the stream goes on after what was read
      all += line + "\n";
      while ((got = in.read_parallel(block.data(), block.size(), threads)) > 0) all.append(block.data(), got);
      CHECK(all == text);
      CHECK(in.bytes_read() == bytes.size());
      std::remove(path.c_str());
    }
  }
}
