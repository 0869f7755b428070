// A text output (dedup's documents, the CLI's -o files): a file published atomically
// (writer/atomic_file.h), compressed by its name's ending (.gz: gzip, .zst: zstd, anything else
// plain), or "-" for standard output.
#pragma once

#include <memory>
#include <string>
#include <string_view>

namespace simdex::writer {

class OutputFile {
 public:
  explicit OutputFile(const std::string& path);  // throws Error(io), Error(usage)
  ~OutputFile();                                 // unpublished: nothing appears at the path
  OutputFile(const OutputFile&) = delete;
  OutputFile& operator=(const OutputFile&) = delete;
  void write(std::string_view bytes);
  // Finishes the compressed stream and makes the file durable, unpublished (a file that must not
  // appear unless something after it succeeds). Nothing may be written after it.
  void finish();
  void close();  // finish() if not yet, then publishes the file

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace simdex::writer
