#include "io/input_stream.h"

#include <fcntl.h>
#include <isa-l/igzip_lib.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zstd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <exception>
#include <functional>
#include <iostream>
#include <streambuf>
#include <vector>

#include "format/run_tasks.h"
#include "format/standard_output_guard.h"
#include "format/system_error.h"
#include "io/fd_io.h"
#include "simdex/error.h"

namespace simdex::io {

namespace {

constexpr std::size_t buffer_bytes = 1 << 16;

// Turns compressed bytes into plain ones. decode() consumes from [in, in_end) and writes at most
// `capacity` bytes to `out`, returning how many; finish() is called once the input is exhausted and
// nothing more comes out, and throws when the stream stopped inside a frame.
class Decoder {
 public:
  virtual ~Decoder() = default;
  virtual std::size_t decode(const char*& in, const char* in_end, char* out, std::size_t capacity) = 0;
  virtual void finish() = 0;
};

[[noreturn]] void corrupt(const std::string& name, const char* format, const std::string& why) {
  throw Error(errc::input, name + ": corrupt " + format + " stream: " + why);
}
[[noreturn]] void truncated(const std::string& name, const char* format) {
  throw Error(errc::input, name + ": truncated " + format + " stream (the input ends inside a frame)");
}

// gzip (RFC 1952), members one after another as `cat a.gz b.gz` makes them, decoded by ISA-L's
// igzip: 2-3x zlib's inflate (bench/RESULTS.md), and decoding is the serial part of reading a .gz
// input on many threads. Each member's CRC-32 and length are checked at its end.
class GzipDecoder : public Decoder {
 public:
  explicit GzipDecoder(const std::string& name) : name_(name) { start_member(); }
  std::size_t decode(const char*& in, const char* in_end, char* out, std::size_t capacity) override {
    if (in == in_end && !in_member_) return 0;
    // Zero bytes after the last member (a tape's or a block device's padding) end the stream, as
    // gzip reads them.
    if (!in_member_ && (padding_ || *in == 0)) {
      padding_ = true;
      while (in != in_end && *in == 0) ++in;
      if (in == in_end) return 0;
    }
    // Bytes after a member must begin another: igzip would wait for the rest of a header that
    // trailing garbage of a few bytes never completes, and call it a truncated stream.
    const auto* m = reinterpret_cast<const unsigned char*>(in);
    if (!in_member_ && (padding_ || m[0] != 0x1f || (in_end - in >= 2 && m[1] != 0x8b)))
      corrupt(name_, "gzip", "bytes after the last member that do not begin another (not gzip magic)");
    // Both at most a buffer (64 KiB) long: they fit igzip's 32-bit counts.
    state_.next_in = reinterpret_cast<std::uint8_t*>(const_cast<char*>(in));
    state_.avail_in = static_cast<std::uint32_t>(in_end - in);
    state_.next_out = reinterpret_cast<std::uint8_t*>(out);
    state_.avail_out = static_cast<std::uint32_t>(capacity);
    in_member_ = true;
    const int rc = isal_inflate(&state_);
    in = reinterpret_cast<const char*>(state_.next_in);
    const std::size_t produced = capacity - state_.avail_out;
    if (rc != ISAL_DECOMP_OK) corrupt(name_, "gzip", why(rc));
    if (state_.block_state == ISAL_BLOCK_FINISH) {  // the member's trailer read and checked
      in_member_ = false;
      start_member();
    }
    return produced;
  }
  void finish() override {
    if (in_member_) truncated(name_, "gzip");
  }

 private:
  void start_member() {
    isal_inflate_init(&state_);
    state_.crc_flag = ISAL_GZIP;  // the header parsed, the trailer checked
  }
  static std::string why(int rc) {
    switch (rc) {
      case ISAL_INVALID_BLOCK:
        return "invalid deflate block";
      case ISAL_INVALID_SYMBOL:
        return "invalid deflate symbol";
      case ISAL_INVALID_LOOKBACK:
        return "invalid distance too far back";
      case ISAL_INVALID_WRAPPER:
        return "not a gzip member (bad header)";
      case ISAL_UNSUPPORTED_METHOD:
        return "unknown compression method";
      case ISAL_INCORRECT_CHECKSUM:
        return "incorrect data check (CRC-32 or length)";
      case ISAL_NEED_DICT:
        return "needs a dictionary";
      default:
        return "error " + std::to_string(rc);
    }
  }

  std::string name_;
  inflate_state state_{};
  bool in_member_ = false;  // inside a member: its end (trailer) not reached yet
  bool padding_ = false;    // zero bytes met after a member: nothing else may follow
};

// zstd frames (and skippable frames), one after another. ZSTD_decompressStream returns 0 exactly
// when a frame is complete and fully flushed; anything else at the end of the input is a cut frame.
class ZstdDecoder : public Decoder {
 public:
  explicit ZstdDecoder(const std::string& name) : name_(name), z_(ZSTD_createDStream()) {
    if (z_ == nullptr) throw Error(errc::io, name_ + ": cannot start zstd");
  }
  ~ZstdDecoder() override { ZSTD_freeDStream(z_); }
  std::size_t decode(const char*& in, const char* in_end, char* out, std::size_t capacity) override {
    ZSTD_inBuffer src{in, static_cast<std::size_t>(in_end - in), 0};
    ZSTD_outBuffer dst{out, capacity, 0};
    if (src.size == 0 && pending_ == 0) return 0;
    const std::size_t rc = ZSTD_decompressStream(z_, &dst, &src);
    if (ZSTD_isError(rc))  // libzstd's words ("Destination buffer is too small") say little alone
      corrupt(name_, "zstd",
              std::string(ZSTD_getErrorName(rc)) +
                  (decoded_ ? "" : " (it starts with zstd's magic number, but its first frame is not zstd)"));
    decoded_ = decoded_ || dst.pos > 0;
    pending_ = rc;
    in += src.pos;
    return dst.pos;
  }
  void finish() override {
    if (pending_ != 0) truncated(name_, "zstd");
  }

 private:
  std::string name_;
  ZSTD_DStream* z_;
  std::size_t pending_ = 0;  // 0: between frames
  bool decoded_ = false;     // some bytes came out
};

// Reads raw bytes: returns how many (0 at the end); throws Error(errc::io) on a read error.
using Source = std::function<std::size_t(char*, std::size_t)>;

// The decoded stream. Its line reader scans the buffer with memchr (as std::getline does for
// std::string), which keeps reading a billion short lines cheap.
class DecodingBuf : public std::streambuf {
 public:
  DecodingBuf(Source source, const std::string& name) : source_(std::move(source)), in_(buffer_bytes) {
    while (in_end_ < 4 && !raw_end_) fill();  // enough for the magic bytes
    const auto* m = reinterpret_cast<const unsigned char*>(in_.data());
    if (in_end_ >= 2 && m[0] == 0x1f && m[1] == 0x8b)
      decoder_ = std::make_unique<GzipDecoder>(name);
    else if (in_end_ >= 4 && ((m[0] == 0x28 && m[1] == 0xb5 && m[2] == 0x2f && m[3] == 0xfd) ||
                              // a skippable frame (magic 0x184D2A50..5F) may come first too
                              ((m[0] & 0xf0) == 0x50 && m[1] == 0x2a && m[2] == 0x4d && m[3] == 0x18)))
      decoder_ = std::make_unique<ZstdDecoder>(name);
    if (decoder_) out_.resize(buffer_bytes);
  }
  bool decodes() const { return decoder_ != nullptr; }

  // Plain: up to n of the bytes read from the source but not yet handed out, moved to dst.
  std::size_t take_buffered(char* dst, std::size_t n) {
    // Before the first read the get area is empty and null: memcpy must not see it.
    const std::size_t got = std::min(n, static_cast<std::size_t>(egptr() - gptr()));
    if (got > 0) {
      std::memcpy(dst, gptr(), got);
      gbump(static_cast<int>(got));
    }
    const std::size_t raw = std::min(n - got, in_end_ - in_pos_);
    if (raw > 0) std::memcpy(dst + got, in_.data() + in_pos_, raw);
    in_pos_ += raw;
    return got + raw;
  }

  LineResult read_line(std::string& line, std::size_t max_bytes) {
    line.clear();
    bool any = false;
    for (;;) {
      if (gptr() == egptr() && underflow() == traits_type::eof())
        return any ? LineResult::ok : LineResult::end;
      any = true;
      const std::size_t avail = static_cast<std::size_t>(egptr() - gptr());
      const char* nl = static_cast<const char*>(std::memchr(gptr(), '\n', avail));
      const std::size_t take = nl != nullptr ? static_cast<std::size_t>(nl - gptr()) : avail;
      if (take > max_bytes - line.size()) {
        line.append(gptr(), max_bytes - line.size());
        return LineResult::too_long;
      }
      line.append(gptr(), take);
      gbump(static_cast<int>(take));
      if (nl != nullptr) {
        gbump(1);
        return LineResult::ok;
      }
    }
  }

 protected:
  int_type underflow() override {
    if (gptr() < egptr()) return traits_type::to_int_type(*gptr());
    for (;;) {
      if (in_pos_ == in_end_ && !raw_end_) {
        in_pos_ = in_end_ = 0;
        fill();
      }
      if (!decoder_) {  // plain: hand out the raw buffer itself
        if (in_pos_ == in_end_) return traits_type::eof();
        setg(in_.data() + in_pos_, in_.data() + in_pos_, in_.data() + in_end_);
        in_pos_ = in_end_;
        return traits_type::to_int_type(*gptr());
      }
      // A decoding error is the stream's for good: read on (check_rest() after a bad line) a decoder
      // past its error would report another one, made up by the state the error left.
      if (failed_) std::rethrow_exception(failed_);
      const char* next = in_.data() + in_pos_;
      std::size_t n = 0;
      try {
        n = decoder_->decode(next, in_.data() + in_end_, out_.data(), out_.size());
      } catch (...) {
        failed_ = std::current_exception();
        throw;
      }
      in_pos_ = static_cast<std::size_t>(next - in_.data());
      if (n > 0) {
        setg(out_.data(), out_.data(), out_.data() + n);
        return traits_type::to_int_type(*gptr());
      }
      if (in_pos_ == in_end_ && raw_end_) {
        decoder_->finish();
        return traits_type::eof();
      }
    }
  }

 private:
  void fill() {
    const std::size_t got = source_(in_.data() + in_end_, in_.size() - in_end_);
    if (got == 0) raw_end_ = true;
    in_end_ += got;
  }

  Source source_;
  std::vector<char> in_, out_;
  std::size_t in_pos_ = 0, in_end_ = 0;
  bool raw_end_ = false;
  std::unique_ptr<Decoder> decoder_;
  std::exception_ptr failed_;  // the decoder's error, once it had one
};

// A failed read or seek of the input: errc::io with the system's reason.
[[noreturn]] void throw_read_error(const std::string& name) { throw system_error("reading " + name); }

Source fd_source(int fd, const std::string& name) {
  return [fd, name](char* s, std::size_t n) -> std::size_t {
    const ssize_t got = read_some(fd, s, n);
    if (got < 0) throw_read_error(name);
    return static_cast<std::size_t>(got);
  };
}

Source istream_source(std::istream& in, const std::string& name) {
  return [&in, name](char* s, std::size_t n) -> std::size_t {
    in.read(s, static_cast<std::streamsize>(n));
    if (in.bad()) throw Error(errc::io, "reading " + name + ": read error");
    return static_cast<std::size_t>(in.gcount());
  };
}

}  // namespace

LineResult read_line(std::istream& in, std::string& line, std::size_t max_bytes) {
  if (auto* buf = dynamic_cast<DecodingBuf*>(in.rdbuf())) {
    // The stream's exceptions() decide whether a decoding error propagates; ours always do.
    return buf->read_line(line, max_bytes);
  }
  line.clear();
  std::streambuf* sb = in.rdbuf();
  for (int c = sb->sbumpc(); c != std::char_traits<char>::eof(); c = sb->sbumpc()) {
    if (c == '\n') return LineResult::ok;
    if (line.size() == max_bytes) return LineResult::too_long;
    line.push_back(static_cast<char>(c));
  }
  in.setstate(std::ios::eofbit);
  return line.empty() ? LineResult::end : LineResult::ok;
}

struct InputStream::Impl {
  int fd = -1;       // opened here (closed with it)
  int read_fd = -1;  // what is read: fd, or stdin
  uint64_t bytes_read = 0, size = 0;
  bool regular = false;
  std::unique_ptr<DecodingBuf> buf;
  std::istream stream{nullptr};
  ~Impl() {
    if (fd >= 0) ::close(fd);
  }
  void start(Source source, const std::string& name) {
    buf = std::make_unique<DecodingBuf>(std::move(source), name);
    stream.rdbuf(buf.get());
    stream.exceptions(std::ios::badbit);  // a decoding error reaches the caller as thrown
  }
};

InputStream::InputStream(const std::string& path) : impl_(std::make_unique<Impl>()) {
  name_ = "<stdin>";
  int fd = STDIN_FILENO;
  if (path != "-") {
    name_ = path;
    fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) throw system_error("cannot open input", path);
    impl_->fd = fd;
  }
  format::check_not_standard_output(fd, name_);  // (impl_ closes fd on the way out)
  impl_->read_fd = fd;
  struct stat st {};
  if (::fstat(fd, &st) == 0 && S_ISREG(st.st_mode)) {
    impl_->size = static_cast<uint64_t>(st.st_size);
    impl_->regular = true;
  }
  impl_->start(
      [read = fd_source(fd, name_), counted = &impl_->bytes_read](char* s, std::size_t n) {
        const std::size_t got = read(s, n);
        *counted += got;
        return got;
      },
      name_);
}

InputStream::InputStream(std::istream& raw, std::string name)
    : impl_(std::make_unique<Impl>()), name_(std::move(name)) {
  impl_->start(istream_source(raw, name_), name_);
}

InputStream::~InputStream() = default;

std::istream& InputStream::stream() { return impl_->stream; }
uint64_t InputStream::bytes_read() const { return impl_->bytes_read; }
uint64_t InputStream::size() const { return impl_->size; }
bool InputStream::plain_file() const { return impl_->regular && !impl_->buf->decodes(); }

bool InputStream::compressed() const { return impl_->buf->decodes(); }

void InputStream::check_rest() {
  // A pipe's writer may not close it soon (or ever): its bad line is reported at once.
  if (!compressed() || !impl_->regular) return;
  std::string piece;
  uint64_t decoded = 0;
  // Lines longer than a piece come in pieces (too_long leaves the stream inside the line).
  for (LineResult r;
       decoded < check_rest_bytes && (r = impl_->buf->read_line(piece, 1 << 16)) != LineResult::end;)
    decoded += piece.size() + 1;
}

std::size_t InputStream::read_parallel(char* dst, std::size_t n, unsigned threads) {
  if (!plain_file()) {
    stream().read(dst, static_cast<std::streamsize>(n));
    return static_cast<std::size_t>(stream().gcount());
  }
  const std::size_t buffered = impl_->buf->take_buffered(dst, n);
  // The rest from the file's offset on (the buffer's source has read up to it), in pieces of at
  // least 1 MiB, each read by one thread; the offset then moved past them for the stream.
  const int fd = impl_->read_fd;
  const off_t at = ::lseek(fd, 0, SEEK_CUR);
  if (at < 0) throw_read_error(name_);
  const std::size_t want = n - buffered;
  constexpr std::size_t kMinPiece = std::size_t{1} << 20;
  const std::size_t pieces = std::max<std::size_t>(1, std::min<std::size_t>(threads, want / kMinPiece));
  auto piece_start = [&](std::size_t i) { return want * i / pieces; };
  std::vector<std::size_t> got(pieces, 0);
  format::run_tasks(pieces > 1 ? threads : 1, pieces, [&](std::size_t i, unsigned, std::atomic<uint64_t>&) {
    const std::size_t begin = piece_start(i), end = piece_start(i + 1);
    // Fewer bytes than asked where the file ends.
    const ssize_t r = pread_full(fd, dst + buffered + begin, end - begin, static_cast<uint64_t>(at) + begin);
    if (r < 0) throw_read_error(name_);
    got[i] = static_cast<std::size_t>(r);
  });
  // The bytes up to the first short piece (a file growing meanwhile could fill later ones).
  std::size_t read = 0;
  for (std::size_t i = 0; i < pieces; ++i) {
    read += got[i];
    if (got[i] < piece_start(i + 1) - piece_start(i)) break;
  }
  if (::lseek(fd, at + static_cast<off_t>(read), SEEK_SET) < 0) throw_read_error(name_);
  impl_->bytes_read += read;
  return buffered + read;
}

void throw_line_too_long(const std::string& name, uint64_t line_number, std::size_t max_bytes,
                         std::string_view why) {
  throw Error(errc::input, name + ":" + std::to_string(line_number) + ": line longer than " +
                               std::to_string(max_bytes) + " bytes" + std::string(why));
}

bool InputStream::next_line(std::string& line, std::size_t max_bytes) {
  const LineResult r = impl_->buf->read_line(line, max_bytes);
  if (r == LineResult::end) return false;
  ++line_number_;
  if (r == LineResult::too_long) throw_line_too_long(name_, line_number_, max_bytes);
  return true;
}

}  // namespace simdex::io
