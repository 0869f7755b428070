// Opens an input for line-by-line reading: a path or "-" (stdin), gzip or zstd compressed or plain.
// Compression is recognised by the stream's magic bytes, not the file name, so a renamed or piped
// file still decodes.
#pragma once

#include <istream>
#include <memory>
#include <string>

namespace simdex::io {

class InputStream {
 public:
  // Throws simdex::Error (errc::io) when the path cannot be opened.
  explicit InputStream(const std::string& path_or_dash);
  ~InputStream();
  InputStream(const InputStream&) = delete;
  InputStream& operator=(const InputStream&) = delete;

  std::istream& stream();
  const std::string& name() const { return name_; }  // "<stdin>" or the path, for messages

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
  std::string name_;
};

}  // namespace simdex::io
