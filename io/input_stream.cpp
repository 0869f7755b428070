#include "io/input_stream.h"

#include <boost/iostreams/filter/gzip.hpp>
#include <boost/iostreams/filter/zstd.hpp>
#include <boost/iostreams/filtering_stream.hpp>
#include <cstring>
#include <fstream>
#include <iostream>

#include "simdex/error.h"

namespace simdex::io {

namespace bio = boost::iostreams;

namespace {
enum class Compression { none, gzip, zstd };

Compression classify(const unsigned char* magic, std::size_t got) {
  if (got >= 2 && magic[0] == 0x1f && magic[1] == 0x8b) return Compression::gzip;
  if (got >= 4 && magic[0] == 0x28 && magic[1] == 0xb5 && magic[2] == 0x2f && magic[3] == 0xfd)
    return Compression::zstd;
  return Compression::none;
}

// A source that first replays the bytes read to recognise the compression, then the rest of the
// underlying stream: stdin cannot be rewound.
class ReplaySource {
 public:
  using char_type = char;
  using category = bio::source_tag;
  ReplaySource(std::istream* in, const unsigned char* prefix, std::size_t n)
      : in_(in), prefix_(prefix, prefix + n) {}
  std::streamsize read(char* s, std::streamsize n) {
    std::streamsize done = 0;
    while (done < n && pos_ < prefix_.size()) s[done++] = static_cast<char>(prefix_[pos_++]);
    if (done < n) {
      in_->read(s + done, n - done);
      done += in_->gcount();
      if (in_->bad()) throw Error(errc::io, "read error on input");
    }
    return done == 0 ? -1 : done;
  }

 private:
  std::istream* in_;
  std::string prefix_;
  std::size_t pos_ = 0;
};
}  // namespace

struct InputStream::Impl {
  std::ifstream file;
  bio::filtering_istream filtered;
};

InputStream::InputStream(const std::string& path) : impl_(std::make_unique<Impl>()) {
  std::istream* raw = &std::cin;
  name_ = "<stdin>";
  if (path != "-") {
    name_ = path;
    impl_->file.open(path, std::ios::binary);
    if (!impl_->file)
      throw Error(errc::io, "cannot open input '" + path + "': " + std::strerror(errno));
    raw = &impl_->file;
  }
  unsigned char magic[4];
  raw->read(reinterpret_cast<char*>(magic), sizeof magic);
  const auto got = static_cast<std::size_t>(raw->gcount());
  if (raw->bad()) throw Error(errc::io, "read error on input '" + name_ + "'");
  raw->clear();
  switch (classify(magic, got)) {
    case Compression::gzip: impl_->filtered.push(bio::gzip_decompressor()); break;
    case Compression::zstd: impl_->filtered.push(bio::zstd_decompressor()); break;
    case Compression::none: break;
  }
  impl_->filtered.push(ReplaySource(raw, magic, got), 1 << 16);
  impl_->filtered.exceptions(std::ios::badbit);
}

InputStream::~InputStream() = default;

std::istream& InputStream::stream() { return impl_->filtered; }

}  // namespace simdex::io
