// The stream readers behind simdex::DocumentSource (include/simdex/documents.h): JSON Lines
// ({"id": <u64>, "text": "..."}, field names configurable) or plain text, one document a line with
// id = 0-based line number.
#pragma once

#include <cstddef>
#include <cstdint>
#include <istream>
#include <memory>
#include <string>

#include "simdex/documents.h"

namespace simdex::text {

class DocumentReader {
 public:
  // `name` names the input in error messages ("<stdin>", a path). `format` is jsonl or lines.
  // A line longer than max_line_bytes is an error (errc::input naming the line), not a document.
  // fast_json: JSON Lines read by simdjson where it gives what nlohmann gives (false: by nlohmann
  // alone, the reference the tests compare with).
  DocumentReader(std::istream& in, std::string name, DocumentFormat format, std::string id_field = "id",
                 std::string text_field = "text", std::size_t max_line_bytes = std::size_t{64} << 20,
                 std::uint64_t (*key_hash)(std::string_view) = nullptr, bool fast_json = true);
  ~DocumentReader();
  DocumentReader(const DocumentReader&) = delete;
  DocumentReader& operator=(const DocumentReader&) = delete;

  // Reads the next document; false at the end of the input. Throws simdex::Error: errc::input for
  // a malformed line (naming the input and line number), errc::io for a read error.
  // In JSON Lines, blank lines are skipped and ill-formed UTF-8 is replaced by U+FFFD (as
  // spec/FINGERPRINT.md step 1 does) rather than rejected; in plain text every line is a document,
  // empty or not.
  bool next(Document& doc);

 private:
  struct FastJson;
  bool read_fast(Document& doc);  // line_'s document through simdjson, when nlohmann would read it so
  void read_json(Document& doc);  // line_'s document through nlohmann: the reference, and its errors

  std::istream& in_;
  std::string name_;
  DocumentFormat format_;
  std::string id_field_, text_field_;
  std::string line_, repaired_, text_, key_;
  std::uint64_t line_no_ = 0;
  std::size_t max_line_bytes_;
  std::uint64_t (*key_hash_)(std::string_view);
  std::unique_ptr<FastJson> fast_;  // null: nlohmann alone
};

}  // namespace simdex::text
