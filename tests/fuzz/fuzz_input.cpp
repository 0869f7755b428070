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
#include <vector>

#include "cli/lines.h"
#include "cli/text_options.h"
#include "fingerprint/document_fingerprints.h"
#include "fingerprint/documents.h"
#include "io/input_stream.h"
#include "simdex/documents.h"
#include "simdex/error.h"
#include "simdex/fingerprint.h"

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

// The documents of `path` read in blocks on 2 threads (DocumentFingerprints: blocks of 64 bytes, so
// that lines are cut and blocks grow) and one at a time (DocumentSource): the same documents and
// the same error; traps on a difference. A compressed stream that fails to decode may stop the
// blocks' documents earlier (at the block being read), never give other ones.
void compare_block_reader(const std::string& path, simdex::DocumentFormat format, bool compressed) {
  struct Doc {
    uint64_t id, line, fingerprint;
    simdex::IdKind kind;
    std::string key;
    std::size_t bytes;
    bool operator==(const Doc&) const = default;
  };
  simdex::DocumentOptions options;
  options.format = format;
  options.max_line_bytes = 4096;  // lines over it: an error both ways
  std::vector<Doc> serial, blocks;
  std::string serial_error, blocks_error;
  try {
    simdex::DocumentSource source(path, options);
    simdex::Fingerprinter f;
    simdex::Document d;
    while (source.next(d))
      serial.push_back({d.id, d.line, f.fingerprint(d.text), d.id_kind, std::string(d.key), d.text.size()});
  } catch (const simdex::Error& e) {
    serial_error = e.what();
  }
  try {
    simdex::DocumentFingerprints documents(path, options, {}, 2, 64);
    documents.run([&](const simdex::FingerprintedDocument& d) {
      blocks.push_back({d.id, d.line, d.fingerprint, d.id_kind, std::string(d.key), d.text_bytes});
    });
  } catch (const simdex::Error& e) {
    blocks_error = e.what();
  }
  if (serial_error != blocks_error) __builtin_trap();
  const bool prefix_allowed = compressed && !serial_error.empty();
  if (blocks.size() > serial.size() || (!prefix_allowed && blocks.size() != serial.size())) __builtin_trap();
  for (std::size_t i = 0; i < blocks.size(); ++i)
    if (!(blocks[i] == serial[i])) __builtin_trap();
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
  const bool compressed = simdex::io::InputStream(file.path()).compressed();
  for (const auto format : {simdex::DocumentFormat::jsonl, simdex::DocumentFormat::lines})
    compare_block_reader(file.path(), format, compressed);
  (void)seen;
  return 0;
}
