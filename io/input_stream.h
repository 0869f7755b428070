// Opens an input for line-by-line reading: a path or "-" (stdin), gzip or zstd compressed or plain.
// Compression is recognised by the stream's magic bytes, not the file name, so a renamed or piped
// file still decodes. A compressed stream must be complete: a truncated or corrupt one is an error
// naming the input, never a short read, so a cut last line is never taken for a record.
#pragma once

#include <cstddef>
#include <cstdint>
#include <istream>
#include <memory>
#include <string>
#include <string_view>

#include "simdex/error.h"

namespace simdex::io {

// A line of fingerprints or pairs is at most a few dozen bytes; anything longer is not such a line.
inline constexpr std::size_t max_pair_line_bytes = 4096;

enum class LineResult { ok, end, too_long };

// The error of a line over max_bytes: "NAME:LINE: line longer than MAX bytes" (errc::input), and
// `why` after it when given.
[[noreturn]] void throw_line_too_long(const std::string& name, uint64_t line_number, std::size_t max_bytes,
                                      std::string_view why = {});

// Reads the next line of `in` into `line`, without its '\n'. A last line without '\n' is a line.
// too_long: the line has more than max_bytes bytes (`line` then holds its first max_bytes bytes and
// the stream is left inside the line). Errors of the stream (a corrupt compressed input) propagate.
LineResult read_line(std::istream& in, std::string& line, std::size_t max_bytes);

class InputStream {
 public:
  // Throws simdex::Error (errc::io) when the path cannot be opened.
  explicit InputStream(const std::string& path_or_dash);
  // Decodes any byte stream (tests and fuzzers read from memory); `name` is used in messages.
  InputStream(std::istream& raw, std::string name);
  ~InputStream();
  InputStream(const InputStream&) = delete;
  InputStream& operator=(const InputStream&) = delete;

  // The decoded bytes. Reading throws simdex::Error: errc::io for a read error, errc::input for a
  // truncated or corrupt compressed stream (naming the input and the cause).
  std::istream& stream();
  const std::string& name() const { return name_; }  // "<stdin>" or the path, for messages

  // The next line, as read_line; false at the end. A line over max_bytes is an Error(errc::input)
  // naming NAME:LINE.
  bool next_line(std::string& line, std::size_t max_bytes = max_pair_line_bytes);
  uint64_t line_number() const { return line_number_; }  // of the line next_line returned last

  // For progress: the bytes read from the file or pipe so far (compressed bytes for a compressed
  // input), and the file's size when it is a regular file (0 otherwise: a pipe, a terminal).
  uint64_t bytes_read() const;
  uint64_t size() const;
  // A regular file that is not compressed: its bytes are the decoded ones, so it may be cut into
  // ranges at line ends and parsed at once (build does).
  bool plain_file() const;
  bool compressed() const;  // gzip or zstd, decoded as it is read
  // After a malformed record met in a compressed stream: decodes up to check_rest_bytes more of it,
  // so that a corrupt stream throws its own error (`in.gz: corrupt gzip stream: ...`) rather than
  // the parse error of the garbage it decoded to (gzip checks a member's bytes only at its end).
  // Returns when those bytes decode, or at once for a plain stream or a pipe (whose writer may not
  // close it soon).
  void check_rest();
  static constexpr uint64_t check_rest_bytes = uint64_t{256} << 20;
  // The next n bytes of the stream (fewer only at its end), as stream().read gives them; from a
  // plain file those past what the stream holds are read by `threads` threads at once (pread), so
  // that the kernel's copy of a cached file is not one thread's work.
  std::size_t read_parallel(char* dst, std::size_t n, unsigned threads);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
  std::string name_;
  uint64_t line_number_ = 0;
};

// read(), whose errc::input errors (a malformed record) are checked against `in` first (check_rest):
// a corrupt compressed input is reported as corrupt, not by the garbage line it decoded to.
template <typename Fn>
decltype(auto) reporting_corrupt_stream(InputStream& in, Fn&& read) {
  try {
    return read();
  } catch (const Error& e) {
    if (e.code() == errc::input) in.check_rest();
    throw;
  }
}

}  // namespace simdex::io
