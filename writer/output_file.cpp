#include "writer/output_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>
#include <zstd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <optional>
#include <utility>
#include <vector>

#include "format/system_error.h"
#include "io/fd_io.h"
#include "simdex/error.h"
#include "writer/atomic_file.h"

namespace simdex::writer {

// Not in the anonymous namespace: OutputFile::Impl holds one (and in a unity build GCC warns of an
// anonymous type in a class of a file included by another).
enum class OutputCodec { plain, gzip, zstd };
using Codec = OutputCodec;

namespace {
// By the name's ending, in any case (OUT.JSONL.GZ too: a name that says gzip and holds plain text
// is read wrong by the tools that go by the name).
Codec codec_of(const std::string& path) {
  std::string end = path.substr(path.size() - std::min<std::size_t>(path.size(), 4));
  for (char& c : end) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (end.ends_with(".gz")) return Codec::gzip;
  if (end.ends_with(".zst")) return Codec::zstd;
  return Codec::plain;
}
}  // namespace

struct OutputFile::Impl {
  std::string name;
  std::optional<writer::AtomicFile> file;  // empty: written in place, to fd
  int fd = STDOUT_FILENO;
  Codec codec = Codec::plain;
  bool finished = false;
  z_stream gz{};
  ZSTD_CCtx* zstd = nullptr;
  std::vector<char> out;  // compressed bytes on their way (compressed outputs only)

  ~Impl() {
    if (codec == Codec::gzip) deflateEnd(&gz);
    ZSTD_freeCCtx(zstd);
    if (fd != STDOUT_FILENO) ::close(fd);  // in place, not closed by close(): what was written stays
  }
  void sink(const char* data, std::size_t size) {
    if (file) return file->write(data, size);
    if (!io::write_all(fd, data, size)) throw system_error("writing " + name);
  }
  void deflate_all(std::string_view in, int flush) {
    gz.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in.data()));
    gz.avail_in = static_cast<uInt>(in.size());
    do {
      gz.next_out = reinterpret_cast<Bytef*>(out.data());
      gz.avail_out = static_cast<uInt>(out.size());
      if (deflate(&gz, flush) == Z_STREAM_ERROR) throw Error(errc::io, "gzip compression failed on " + name);
      sink(out.data(), out.size() - gz.avail_out);
    } while (gz.avail_out == 0 || (flush == Z_FINISH && gz.avail_in > 0));
  }
  void zstd_all(std::string_view in, ZSTD_EndDirective mode) {
    ZSTD_inBuffer input{in.data(), in.size(), 0};
    for (;;) {
      ZSTD_outBuffer output{out.data(), out.size(), 0};
      const std::size_t left = ZSTD_compressStream2(zstd, &output, &input, mode);
      if (ZSTD_isError(left))
        throw Error(errc::io, "zstd compression failed on " + name + ": " + ZSTD_getErrorName(left));
      sink(out.data(), output.pos);
      if (mode == ZSTD_e_end ? left == 0 : input.pos == input.size) break;
    }
  }
};

namespace {
// A FIFO, a device, or a link to one, which is written as it is rather than replaced.
bool written_in_place(const std::string& path) {
  struct stat st {
  }, target{};
  if (::lstat(path.c_str(), &st) != 0 || S_ISREG(st.st_mode)) return false;
  if (!S_ISLNK(st.st_mode)) return !S_ISDIR(st.st_mode);  // a directory: AtomicFile names it
  return path.starts_with("/dev/") || path.starts_with("/proc/") ||
         (::stat(path.c_str(), &target) == 0 && !S_ISREG(target.st_mode) && !S_ISDIR(target.st_mode));
}
}  // namespace

OutputFile::OutputFile(const std::string& path) : impl_(std::make_unique<Impl>()) {
  if (path == "-") {
    impl_->name = "standard output";
  } else {
    impl_->name = "'" + path + "'";
    impl_->codec = codec_of(path);
    if (!written_in_place(path)) {
      require_target_directory(path);  // its directory, and room in a name for the temporary file's
      impl_->file.emplace(path);
    } else if ((impl_->fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666)) < 0) {
      impl_->fd = STDOUT_FILENO;  // nothing for ~Impl to close
      throw system_error("cannot write", path);
    }
  }
  if (impl_->codec != Codec::plain) impl_->out.resize(1 << 17);
  if (impl_->codec == Codec::gzip &&
      deflateInit2(&impl_->gz, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK) {
    impl_->codec = Codec::plain;  // nothing for ~Impl to end
    throw Error(errc::io, "cannot start gzip compression for " + impl_->name);
  }
  if (impl_->codec == Codec::zstd && !(impl_->zstd = ZSTD_createCCtx()))
    throw Error(errc::io, "cannot start zstd compression for " + impl_->name);
}

OutputFile::~OutputFile() = default;

void OutputFile::write(std::string_view bytes) {
  switch (impl_->codec) {
    case Codec::plain:
      return impl_->sink(bytes.data(), bytes.size());
    case Codec::gzip:
      return impl_->deflate_all(bytes, Z_NO_FLUSH);
    case Codec::zstd:
      return impl_->zstd_all(bytes, ZSTD_e_continue);
  }
}

void OutputFile::finish() {
  if (impl_->finished) return;
  impl_->finished = true;
  if (impl_->codec == Codec::gzip) impl_->deflate_all({}, Z_FINISH);
  if (impl_->codec == Codec::zstd) impl_->zstd_all({}, ZSTD_e_end);
  if (impl_->file) impl_->file->sync();
}

void OutputFile::close() {
  finish();
  if (impl_->file) return impl_->file->publish();
  if (impl_->fd == STDOUT_FILENO) return;
  const int fd = std::exchange(impl_->fd, STDOUT_FILENO);
  if (::close(fd) != 0) throw system_error("writing " + impl_->name);
}

bool OutputFile::in_place() const { return !impl_->file; }

}  // namespace simdex::writer
