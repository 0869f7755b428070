// A text output (dedup's documents, the CLI's -o files), compressed by its name's ending (.gz: gzip,
// .zst: zstd, anything else plain). A new or regular file is published atomically
// (writer/atomic_file.h): whole at close(), or not at all. A FIFO, a device, or a link to one
// (/dev/stdout, /dev/fd/N: under /dev or /proc whatever they point to) is opened and written as it
// is, and "-" is standard output. Any other link is refused, as AtomicFile refuses it: written
// through, a failed run would leave its target cut short.
#pragma once

#include <memory>
#include <string>
#include <string_view>

namespace simdex::writer {

class OutputFile {
 public:
  explicit OutputFile(const std::string& path);  // throws Error(io), Error(usage)
  ~OutputFile();  // unpublished: nothing appears at the path (in place: what was written stays)
  OutputFile(const OutputFile&) = delete;
  OutputFile& operator=(const OutputFile&) = delete;
  void write(std::string_view bytes);
  // Finishes the compressed stream and makes the file durable, unpublished (a file that must not
  // appear unless something after it succeeds). Nothing may be written after it.
  void finish();
  void close();  // finish() if not yet, then publishes the file (in place: closes it, checked)
  // Written as it goes (standard output, a FIFO, a device): bytes written have reached the
  // destination, and there is nothing to publish.
  bool in_place() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace simdex::writer
