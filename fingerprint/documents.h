// The stream readers behind simdex::DocumentSource (include/simdex/documents.h): JSON Lines
// ({"id": <u64>, "text": "..."}, field names configurable) or plain text, one document a line with
// id = 0-based line number.
#pragma once

#include <cstddef>
#include <cstdint>
#include <istream>
#include <memory>
#include <string>
#include <string_view>

#include "simdex/documents.h"

namespace simdex::text {

// The error of a document's line over max_bytes (errc::input, naming the input and the line).
[[noreturn]] void throw_document_too_long(const std::string& name, std::uint64_t line_no,
                                          std::size_t max_bytes);
// Throws errc::input when an input's first line starts with a UTF-16 byte order mark: its lines
// would be read as garbage.
void refuse_utf16(std::string_view first_line, const std::string& name);
// The format `input` is read in (`automatic` resolved: a directory is `directory`, anything else
// `jsonl`). Throws Error(usage) when the format does not fit the input (a directory named for lines).
DocumentFormat input_format(const std::string& input, DocumentFormat asked);

// A line of JSON Lines or plain text made a Document: DocumentReader's work on each line, and the
// work of each thread that parses the lines of a block (fingerprint/document_fingerprints.h).
class DocumentLineParser {
 public:
  // `name` names the input in error messages ("<stdin>", a path). `format` is jsonl or lines.
  // fast_json: JSON Lines read by simdjson where it gives what nlohmann gives (false: by nlohmann
  // alone, the reference the tests compare with).
  DocumentLineParser(std::string name, DocumentFormat format, std::string id_field, std::string text_field,
                     std::size_t max_line_bytes, std::uint64_t (*key_hash)(std::string_view), bool fast_json);
  ~DocumentLineParser();
  DocumentLineParser(DocumentLineParser&&) noexcept;
  DocumentLineParser& operator=(DocumentLineParser&&) noexcept;

  // The bytes past a line's end that parse() may read (they need not hold anything in particular).
  static std::size_t padding();

  // The document on line `line_no` (1-based) of the input, `line` without its '\n'; false for a
  // blank line of JSON Lines, which holds none. doc's views are valid until the next call. Throws
  // simdex::Error(errc::input) for a malformed line or one over max_line_bytes, naming the input
  // and line. Ill-formed UTF-8 in JSON Lines is replaced by U+FFFD (as spec/FINGERPRINT.md step 1
  // does) rather than rejected; a '\r' ending a line is dropped (CRLF files).
  bool parse(std::string_view line, std::uint64_t line_no, Document& doc);

 private:
  struct FastJson;
  bool read_fast(std::string_view line, std::uint64_t line_no, Document& doc);  // when nlohmann reads it so
  void read_json(std::string_view line, std::uint64_t line_no, Document& doc);  // nlohmann: the reference

  std::string name_;
  DocumentFormat format_;
  std::string id_field_, text_field_;
  std::size_t max_line_bytes_;
  std::uint64_t (*key_hash_)(std::string_view);
  std::string repaired_, scratch_, text_, key_;
  std::unique_ptr<FastJson> fast_;  // null: nlohmann alone
};

// Documents read a line at a time from a stream.
class DocumentReader {
 public:
  // A line longer than max_line_bytes is an error (errc::input naming the line), not a document.
  DocumentReader(std::istream& in, std::string name, DocumentFormat format, std::string id_field = "id",
                 std::string text_field = "text", std::size_t max_line_bytes = std::size_t{64} << 20,
                 std::uint64_t (*key_hash)(std::string_view) = nullptr, bool fast_json = true);
  DocumentReader(const DocumentReader&) = delete;
  DocumentReader& operator=(const DocumentReader&) = delete;

  // Reads the next document; false at the end of the input. Throws simdex::Error: errc::input for
  // a malformed line (naming the input and line number), errc::io for a read error. In JSON Lines,
  // blank lines are skipped; in plain text every line is a document, empty or not.
  bool next(Document& doc);

 private:
  std::istream& in_;
  std::string name_;
  std::string line_;
  std::uint64_t line_no_ = 0;
  std::size_t max_line_bytes_;
  DocumentLineParser parser_;
};

}  // namespace simdex::text
