// The one way the CLI writes its results: buffered (one write per 64 KiB, not per line), to
// standard output or a file, with every write and the final close checked. A write error (a full
// disk, a closed descriptor) is an Error(errc::io) such as "writing standard output: No space left
// on device". A reader that goes away (`| head`) ends the process by SIGPIPE, quietly, as coreutils
// do; a process started with SIGPIPE ignored gets EPIPE, reported as any other write error. A file
// (absent or regular) is written atomically, as an index is: whole at close(), or not at all; a
// name ending .gz or .zst is compressed so.
// Also the CLI's text helpers: JSON strings, and bytes from input made safe for a terminal.
#pragma once

#include <fmt/format.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "writer/atomic_file.h"
#include "writer/output_file.h"

namespace simdex::cli {

// `v` in decimal, appended: the hot path of id lists (no format string to parse, and written in
// place, where a std::back_inserter made fmt go through a buffer of its own and copy).
inline void append_decimal(fmt::memory_buffer& b, std::uint64_t v) {
  const fmt::format_int digits(v);
  b.append(digits.data(), digits.data() + digits.size());
}

// "s" after a count other than 1: "1 table", "2 tables".
inline const char* plural_s(std::uint64_t n) { return n == 1 ? "" : "s"; }

class Output {
 public:
  Output();  // standard output
  // This file, as writer::OutputFile writes it: a new or regular file is replaced at close()
  // (temporary file, fsync, rename; the directory and the path are checked here, before any
  // work), a device or a FIFO is opened and written as it is. "" or "-": standard output.
  explicit Output(const std::string& path);
  // Writes what is still buffered to standard output or a device, so a command that stops on an
  // error keeps what it computed (its whole lines: not the one an error cut); a file not closed is
  // left as it was. A write error here (when close() was not reached) is remembered for
  // take_deferred_error().
  ~Output();
  Output(const Output&) = delete;
  Output& operator=(const Output&) = delete;

  template <typename... Args>
  void print(fmt::format_string<Args...> f, Args&&... args) {
    fmt::format_to(fmt::appender(buffer_), f, std::forward<Args>(args)...);
    maybe_flush();
  }
  // For code that appends to buffer() directly: writes once 64 KiB are held (a unit: 64 MiB).
  // The lines printed whole go; the line being printed stays, so that an error before its end
  // leaves none of it written (a line longer than kLineHeld goes as it comes: a cluster of 10M ids).
  void maybe_flush() {
    if (buffer_.size() >= flush_at_) flush_complete_lines();
  }
  static constexpr std::size_t kLineHeld = std::size_t{1} << 20;
  // A unit (an answer of `query --serve`) reaches the reader whole or not at all: what is printed
  // after begin_unit() is held in memory, up to kUnitBytes, until end_unit(); discard_unit() drops
  // it, and says false when it outgrew that bound and its start has been written already.
  static constexpr std::size_t kUnitBytes = std::size_t{64} << 20;
  void begin_unit() {
    unit_start_ = buffer_.size();
    unit_written_ = false;
    flush_at_ = kUnitBytes;
  }
  void end_unit() { flush_at_ = 1 << 16; }
  bool discard_unit() {
    end_unit();
    if (unit_written_) return false;
    buffer_.resize(unit_start_);
    searched_ = 0;  // what is left is searched again
    return true;
  }
  fmt::memory_buffer& buffer() { return buffer_; }
  // `values` comma-separated, decimal, written out as they come: a list of 10M ids is not held.
  void append_list(const auto& values) {
    bool first = true;
    for (std::uint64_t v : values) {
      if (!first) buffer_.push_back(',');
      append_decimal(buffer_, v);
      first = false;
      maybe_flush();
    }
  }
  void flush();  // writes the buffer; throws Error(errc::io) naming the output and the cause
  void close();  // flush, then close a file (its close is checked too); throws as flush
  // Everything written and made durable, but a file not yet published (close() does that): for a
  // file that must not appear unless something after it succeeds. Nothing may be printed after it.
  void finish();

 private:
  std::size_t complete_lines_bytes();  // bytes of buffer_ up to and with its last '\n'
  void flush_complete_lines();
  writer::OutputFile file_;
  bool closed_ = false;
  fmt::memory_buffer buffer_;
  // The search for the last '\n' resumes where it stopped: a line of 10M ids is searched once, not
  // from its start at each id (a query of 3M ids took 13 s in memrchr). buffer_[0, searched_) holds
  // no '\n' (a line found is written, or the buffer cleared, before the next search).
  std::size_t searched_ = 0;
  std::size_t flush_at_ = 1 << 16;
  std::size_t unit_start_ = 0;  // where the unit begun last starts in buffer_
  bool unit_written_ = false;   // it was flushed in part
};

// A write error an Output met in its destructor (then an exception was already on its way), or "".
std::string take_deferred_error();

// What a command that stopped on `e` (not a simdex::Error) says: its what(), and for std::bad_alloc
// (a `ulimit -v` below what the memory bound and threads take) what to lower.
std::string failure_message(const std::exception& e);

// `text` as a JSON string, quotes included: '"', '\' and control bytes escaped; bytes that are not
// UTF-8 become U+FFFD (maximal subparts, as spec/FINGERPRINT.md step 1 repairs a text).
void append_json_string(fmt::memory_buffer& b, std::string_view text);

// `text` with control bytes (C0, DEL, and the C1 controls U+0080..U+009F, which terminals obey
// too) written as \xNN, \t, \n, \r: input echoed in a message cannot drive the terminal. Bytes
// that are not UTF-8 are written \xNN too, and a byte order mark \ufeff, so that they show.
std::string printable(std::string_view text);

// Where a command that writes `output` keeps its temporary files: `tmp_dir_flag` (--tmp-dir) when
// given, else the output's directory ("." for a bare name), so the rename that publishes stays on one
// file system; "" when the output is stdout ("-"): the caller's choice, the system's temp directory.
std::string temp_dir_for(const std::string& tmp_dir_flag, const std::string& output);

}  // namespace simdex::cli
