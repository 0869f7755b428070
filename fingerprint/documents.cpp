#include "fingerprint/documents.h"

#include <nlohmann/json.hpp>

#include "fingerprint/utf8.h"
#include "io/input_stream.h"
#include "simdex/error.h"

namespace simdex::fp {

DocumentReader::DocumentReader(std::istream& in, std::string name, DocumentFormat format,
                               std::string id_field, std::string text_field, std::size_t max_line_bytes)
    : in_(in), name_(std::move(name)), format_(format), id_field_(std::move(id_field)),
      text_field_(std::move(text_field)), max_line_bytes_(max_line_bytes) {}

bool DocumentReader::next(Document& doc) {
  for (;;) {
    const io::LineResult read = io::read_line(in_, line_, max_line_bytes_);
    if (read == io::LineResult::end) {
      if (in_.bad()) throw Error(errc::io, "read error on " + name_);
      return false;
    }
    ++line_no_;
    if (read == io::LineResult::too_long)
      throw Error(errc::input, name_ + ":" + std::to_string(line_no_) + ": line longer than " +
                                   std::to_string(max_line_bytes_) + " bytes");
    if (!line_.empty() && line_.back() == '\r') line_.pop_back();  // CRLF files
    doc.line = line_no_;
    if (format_ == DocumentFormat::lines) {
      doc.id = line_no_ - 1;
      doc.text = line_;
      return true;
    }
    if (line_.find_first_not_of(" \t") == std::string::npos) continue;

    auto fail = [&](const std::string& what) {
      return Error(errc::input, name_ + ":" + std::to_string(line_no_) + ": " + what);
    };
    // JSON must be UTF-8, but real dumps carry stray bytes: repair them as spec step 1 would, so a
    // text's fingerprint is the same as that of its raw bytes.
    if (!is_valid_utf8(line_)) {
      repair_utf8(line_, repaired_);
      line_.swap(repaired_);
    }
    nlohmann::json j;
    try {
      j = nlohmann::json::parse(line_);
    } catch (const nlohmann::json::parse_error& e) {
      // e.what() is "[json.exception...] parse error at line 1, column N: WHY"; keep WHY.
      std::string why = e.what();
      const auto colon = why.find(": ", why.find("column"));
      if (colon != std::string::npos) why.erase(0, colon + 2);
      throw fail("not valid JSON at byte " + std::to_string(e.byte) + ": " + why);
    }
    if (!j.is_object()) throw fail("expected a JSON object, one document per line");
    const auto id = j.find(id_field_);
    if (id == j.end()) throw fail("no field \"" + id_field_ + "\" (the document id)");
    if (!id->is_number_unsigned())
      throw fail("field \"" + id_field_ + "\" must be an integer in 0..2^64-1, not " + id->dump());
    const auto text = j.find(text_field_);
    if (text == j.end()) throw fail("no field \"" + text_field_ + "\" (the document text)");
    if (!text->is_string()) throw fail("field \"" + text_field_ + "\" must be a JSON string");
    doc.id = id->get<std::uint64_t>();
    text_ = std::move(text->get_ref<std::string&>());
    doc.text = text_;
    return true;
  }
}

}  // namespace simdex::fp
