// Text documents for simdex::Fingerprinter, read exactly as `simdex fingerprint`, `simdex build
// --text` and `simdex query --text` read them, so a program linking simdex gets the same ids as the
// CLI:
//
//   simdex::DocumentSource docs("corpus.jsonl.gz");  // a file, "-" for stdin, or a directory
//   simdex::Fingerprinter fingerprinter;
//   simdex::Document doc;
//   while (docs.next(doc)) use(doc.id, fingerprinter.fingerprint(doc.text));
//
// A document's id (spec/KEYS.md): an integer in the id field is the id; a string there is a key,
// whose id is simdex::key_id(key) (XXH3-64, include/simdex/keys.h); with no id field (or null) the
// id is the 0-based line number. A directory's files are keyed by their paths.
//
// Every function throws simdex::Error: errc::input for a malformed document (naming the file and
// line), errc::io when something cannot be read or written, errc::usage when the format does not
// fit the input.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "simdex/error.h"
#include "simdex/export.h"
#include "simdex/keys.h"

namespace simdex {

// How an input holds its documents, and so which id each document gets.
enum class DocumentFormat {
  automatic,  // a directory is read as `directory`, anything else as `jsonl`
  jsonl,      // JSON Lines: one object a line with a text string and an optional id (an integer
              // 0..2^64-1 or a string key); blank lines are skipped, ill-formed UTF-8 is repaired
              // (spec/FINGERPRINT.md step 1)
  lines,      // plain text: every line is a document, empty or not; id = its 0-based line number
  directory,  // every regular file below the directory, recursively, is a document, keyed by its
              // '/'-separated path relative to the directory: id = key_id(path) (see paths())
};

struct DocumentOptions {
  DocumentFormat format = DocumentFormat::automatic;
  std::string id_field = "id";      // jsonl: the field holding the id or key (optional)
  std::string text_field = "text";  // jsonl: the field holding the text
  // jsonl and lines: a longer line is an error (errc::input naming the line), not a document;
  // directory: a longer file (its bytes after decompression) is an error naming the file.
  std::size_t max_line_bytes = std::size_t{64} << 20;
  // The id of a key; null: key_id. For tests, which need collisions XXH3-64 does not give.
  std::uint64_t (*key_hash)(std::string_view key) = nullptr;
};

struct Document {
  std::uint64_t id = 0;
  std::string_view text;   // valid until the next call of next()
  std::uint64_t line = 0;  // jsonl and lines: the 1-based line the document is on; directory: 0
  IdKind id_kind = IdKind::integer;
  std::string_view key;  // id_kind key: the key (valid until the next call of next()); else empty
};

class SIMDEX_EXPORT DocumentSource {
 public:
  // Opens `input`: a file (gzip and zstd files are read transparently), "-" for standard input, or
  // a directory, which is listed at once (its files are read one by one by next()).
  explicit DocumentSource(const std::string& input, DocumentOptions options = {});
  ~DocumentSource();
  DocumentSource(DocumentSource&&) noexcept;
  DocumentSource& operator=(DocumentSource&&) noexcept;

  // The format in use: options.format, or for `automatic` the one the input called for.
  DocumentFormat format() const;
  // Reads the next document; false at the end of the input.
  bool next(Document& doc);
  // Directory input: the files' '/'-separated paths relative to the directory, in byte order (the
  // order next() reads them in). Empty for other inputs.
  const std::vector<std::string>& paths() const;
  // Writes the key map of paths() (spec/KEYS.md) to `file`.
  void write_paths(const std::string& file) const;

  // How far reading has come, for a progress display: a file or stdin counts the bytes read from
  // it (compressed bytes for a compressed file) of its size (0 when unknown: a pipe); a directory
  // counts files read of its files.
  struct Position {
    std::uint64_t done = 0, total = 0;
    bool in_bytes = true;  // false: files
  };
  Position position() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// The format named "auto", "jsonl", "lines" or "dir" (the CLI's --input-format); throws
// Error(errc::usage) for another name.
SIMDEX_EXPORT DocumentFormat document_format(std::string_view name);

// Stopwords from a file, one a line (UTF-8; CR LF line ends and blank lines are allowed; gzip and
// zstd decoded, "-" for standard input, as every input), to add to FingerprintOptions::stopwords.
SIMDEX_EXPORT std::vector<std::string> read_stopwords_file(const std::string& path);

}  // namespace simdex
