// libFuzzer target over the input parsers of `simdex build`: the fuzz bytes are an input file (plain,
// or gzip / zstd, recognised by their magic bytes as io::InputStream does), read as `build` reads it
// (FINGERPRINT[<TAB>ID] lines through PairReader) and as `build --text` does (JSON Lines, then plain
// text lines: documents fingerprinted). A target passes when every input is read or rejected with
// simdex::Error, and when the JSON Lines reader's two ways (simdjson where it reads a line as
// nlohmann would, nlohmann alone) give the same documents and the same errors.
#include <sys/mman.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>

#include "cli/lines.h"
#include "cli/text_options.h"
#include "fingerprint/documents.h"
#include "io/input_stream.h"
#include "simdex/error.h"

namespace {

// The input as a file: an in-memory one, opened by path as `build` opens its INPUT.
class MemoryFile {
 public:
  MemoryFile(const uint8_t* data, std::size_t size) : fd_(::memfd_create("fuzz-input", MFD_CLOEXEC)) {
    for (std::size_t done = 0; fd_ >= 0 && done < size;) {
      const ssize_t n = ::write(fd_, data + done, size - done);
      if (n <= 0) std::abort();
      done += static_cast<std::size_t>(n);
    }
    if (fd_ < 0) std::abort();
  }
  ~MemoryFile() { ::close(fd_); }
  std::string path() const { return "/proc/self/fd/" + std::to_string(fd_); }

 private:
  int fd_;
};

// Every line of `bytes` read as JSON Lines both ways; traps on the first difference.
void compare_json_readers(std::string_view bytes) {
  std::istringstream fast_in{std::string(bytes)}, slow_in{std::string(bytes)};
  simdex::text::DocumentReader fast(fast_in, "in", simdex::DocumentFormat::jsonl, "id", "text",
                                    std::size_t{64} << 20, nullptr, true);
  simdex::text::DocumentReader slow(slow_in, "in", simdex::DocumentFormat::jsonl, "id", "text",
                                    std::size_t{64} << 20, nullptr, false);
  for (;;) {
    simdex::Document a, b;
    std::string error_a, error_b;
    bool more_a = false, more_b = false;
    try {
      more_a = fast.next(a);
    } catch (const simdex::Error& e) {
      error_a = e.what();
    }
    try {
      more_b = slow.next(b);
    } catch (const simdex::Error& e) {
      error_b = e.what();
    }
    if (error_a != error_b || more_a != more_b) __builtin_trap();
    if (!error_a.empty()) continue;
    if (!more_a) return;
    if (a.id != b.id || a.id_kind != b.id_kind || a.line != b.line || a.key != b.key || a.text != b.text)
      __builtin_trap();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
  const MemoryFile file(data, size);
  uint64_t seen = 0;
  try {  // build: pair lines
    simdex::io::InputStream in(file.path());
    simdex::cli::PairReader reader(in.name());
    std::string line;
    while (std::getline(in.stream(), line))
      if (auto pair = reader.parse(line)) seen += pair->first ^ pair->second;
  } catch (const simdex::Error&) {
  }
  for (const char* format : {"jsonl", "lines"}) {
    try {  // build --text: documents
      simdex::cli::TextOptions options;
      options.input_format = format;
      simdex::cli::for_each_text_fingerprint(
          file.path(), options, "",
          [&](uint64_t id, uint64_t fp, std::optional<std::string_view> key) {
            seen += id ^ fp ^ (key ? key->size() : 1);  // the key is read back
          })
          .commit();  // no key map: "" beside and no --key-map
    } catch (const simdex::Error&) {
    }
  }
  compare_json_readers(std::string_view(reinterpret_cast<const char*>(data), size));
  (void)seen;
  return 0;
}
