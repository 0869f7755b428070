#include "fingerprint/documents.h"

#include <simdjson.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <optional>

#include "fingerprint/utf8.h"
#include "io/input_stream.h"
#include "simdex/error.h"

namespace simdex {

namespace fs = std::filesystem;

namespace text {

namespace {
// Lines up to this size are read by simdjson. Its parser's memory grows with the longest line it
// has read (up to about ten times it, for a line of small numbers): longer lines go to nlohmann.
constexpr std::size_t kFastJsonBytes = std::size_t{1} << 20;
}  // namespace

struct DocumentLineParser::FastJson {
  simdjson::dom::parser parser{kFastJsonBytes};
};

void throw_document_too_long(const std::string& name, std::uint64_t line_no, std::size_t max_bytes) {
  io::throw_line_too_long(
      name, line_no, max_bytes,
      " (the longest document: 64 MiB, or a quarter of the memory bound --memory / memory= "
      "where that is less)");
}

void refuse_utf16(std::string_view first_line, const std::string& name) {
  if (first_line.starts_with("\xFF\xFE") || first_line.starts_with("\xFE\xFF"))
    throw Error(errc::input, name + ":1: UTF-16 text (it starts with a UTF-16 byte order mark); " +
                                 "lines and JSON Lines are read as UTF-8: convert it first (iconv -f UTF-16 "
                                 "-t UTF-8); a directory's UTF-16 files are decoded");
}

DocumentLineParser::DocumentLineParser(std::string name, DocumentFormat format, std::string id_field,
                                       std::string text_field, std::size_t max_line_bytes,
                                       std::uint64_t (*key_hash)(std::string_view), bool fast_json)
    : name_(std::move(name)),
      format_(format),
      id_field_(std::move(id_field)),
      text_field_(std::move(text_field)),
      max_line_bytes_(max_line_bytes),
      key_hash_(key_hash ? key_hash : key_id),
      fast_(fast_json ? std::make_unique<FastJson>() : nullptr) {}

DocumentLineParser::~DocumentLineParser() = default;
DocumentLineParser::DocumentLineParser(DocumentLineParser&&) noexcept = default;
DocumentLineParser& DocumentLineParser::operator=(DocumentLineParser&&) noexcept = default;

std::size_t DocumentLineParser::padding() { return simdjson::SIMDJSON_PADDING; }

bool DocumentLineParser::parse(std::string_view line, std::uint64_t line_no, Document& doc) {
  if (line.size() > max_line_bytes_) throw_document_too_long(name_, line_no, max_line_bytes_);
  if (line.ends_with('\r')) line.remove_suffix(1);  // CRLF files
  doc.line = line_no;
  doc.key = {};
  if (format_ == DocumentFormat::lines) {
    doc.id = line_no - 1;
    doc.id_kind = IdKind::line;
    doc.text = line;
    return true;
  }
  if (line.find_first_not_of(" \t") == std::string_view::npos) return false;
  // simdjson checks the line's UTF-8 as it reads it (faster than is_valid_utf8 alone): a line it
  // reads needs no repair.
  if (read_fast(line, line_no, doc)) return true;
  // JSON must be UTF-8, but real dumps carry stray bytes: repair them as spec step 1 would, so a
  // text's fingerprint is the same as that of its raw bytes.
  bool repaired = false;
  if (!is_valid_utf8(line)) {
    repair_utf8(line, repaired_);
    scratch_.swap(repaired_);
    repaired = true;
  } else {
    scratch_.assign(line);
  }
  // And an escaped lone surrogate (\uD800), which both parsers refuse, is U+FFFD as in raw bytes.
  if (repair_lone_surrogate_escapes(scratch_)) repaired = true;
  scratch_.reserve(scratch_.size() + padding());
  if (repaired && read_fast(scratch_, line_no, doc)) return true;
  read_json(repaired ? std::string_view(scratch_) : line, line_no, doc);
  return true;
}

DocumentReader::DocumentReader(std::istream& in, std::string name, DocumentFormat format,
                               std::string id_field, std::string text_field, std::size_t max_line_bytes,
                               std::uint64_t (*key_hash)(std::string_view), bool fast_json)
    : in_(in),
      name_(name),
      max_line_bytes_(max_line_bytes),
      parser_(std::move(name), format, std::move(id_field), std::move(text_field), max_line_bytes, key_hash,
              fast_json) {}

bool DocumentReader::next(Document& doc) {
  for (;;) {
    const io::LineResult read = io::read_line(in_, line_, max_line_bytes_);
    if (read == io::LineResult::end) {
      if (in_.bad()) throw Error(errc::io, "read error on " + name_);
      return false;
    }
    ++line_no_;
    if (read == io::LineResult::too_long) throw_document_too_long(name_, line_no_, max_line_bytes_);
    if (line_no_ == 1) refuse_utf16(line_, name_);
    line_.reserve(line_.size() + DocumentLineParser::padding());  // simdjson reads past the end
    if (parser_.parse(line_, line_no_, doc)) return true;
  }
}

// simdjson (several times nlohmann's speed, which bounded `simdex fingerprint` on JSON Lines) reads
// only lines whose document nlohmann would read the same way: a JSON object whose text field is a
// string and whose id field is absent, null, a string or an integer above 0 (simdjson reads "-0",
// a signed integer to nlohmann, as 0). A field named twice counts by its last value, as in
// nlohmann. Everything else, every error included, is read by nlohmann, whose errors are reported.
bool DocumentLineParser::read_fast(std::string_view line, std::uint64_t line_no, Document& doc) {
  if (!fast_ || line.size() > kFastJsonBytes) return false;
  simdjson::dom::object object;
  if (fast_->parser.parse(line.data(), line.size(), false).get(object)) return false;
  std::optional<simdjson::dom::element> text, id;
  for (const simdjson::dom::key_value_pair field : object) {
    if (field.key == text_field_) text = field.value;
    if (field.key == id_field_) id = field.value;
  }
  std::string_view text_value;
  if (!text || text->get(text_value)) return false;
  if (!id || id->is_null()) {
    doc.id = line_no - 1;
    doc.id_kind = IdKind::line;
  } else if (std::string_view key; !id->get(key)) {
    doc.key = key;
    doc.id = key_hash_(key);
    doc.id_kind = IdKind::key;
  } else if (id->type() == simdjson::dom::element_type::UINT64) {
    doc.id = id->get_uint64().value_unsafe();
    doc.id_kind = IdKind::integer;
  } else if (id->type() == simdjson::dom::element_type::INT64 && id->get_int64().value_unsafe() > 0) {
    doc.id = static_cast<std::uint64_t>(id->get_int64().value_unsafe());
    doc.id_kind = IdKind::integer;
  } else {
    return false;
  }
  doc.text = text_value;  // both views into the parser's buffers, valid until the next line
  return true;
}

void DocumentLineParser::read_json(std::string_view line, std::uint64_t line_no, Document& doc) {
  auto fail = [&](const std::string& what) {
    std::string hint;  // the likely mix-ups, told on the first line
    const auto start = line.find_first_not_of(" \t");
    const std::string head(line.substr(0, 8));  // the magic's 0x89 may have become U+FFFD
    if (line_no == 1 && !line.empty() && (line[0] & 0x80) &&
        (head.find("SDX") != std::string::npos || head.find("SDS") != std::string::npos))
      hint = " (a simdex index or set, not documents)";
    else if (line_no == 1 && start != std::string_view::npos && line[start] != '{')
      hint =
          " (JSON Lines expected; for plain text, one document a line: --input-format lines, in Python "
          "input_format=\"lines\")";
    return Error(errc::input, name_ + ":" + std::to_string(line_no) + ": " + what + hint);
  };
  // Only the record's own fields are read: what lies deeper is dropped as it is parsed (a long line
  // of small values, or of brackets, cost many times its bytes held as a tree: a 60 MB line,
  // 2.3 GB), except within the id field, which an error shows; and no record nests deeper than
  // kMaxDepth (the parser keeps 8 bytes a level open).
  constexpr int kMaxDepth = 100000;
  struct TooDeep {};
  bool in_id = false;
  const nlohmann::json::parser_callback_t shallow = [&](int depth, nlohmann::json::parse_event_t event,
                                                        nlohmann::json& parsed) {
    if (depth > kMaxDepth) throw TooDeep{};
    if (depth == 1 && event == nlohmann::json::parse_event_t::key)
      in_id = parsed.is_string() && parsed.get_ref<const std::string&>() == id_field_;
    return depth < 2 || in_id;
  };
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(line.begin(), line.end(), shallow);
  } catch (const TooDeep&) {
    throw fail("JSON nested deeper than " + std::to_string(kMaxDepth) + " levels");
  } catch (const nlohmann::json::parse_error& e) {
    // e.what() is "[json.exception...] parse error at line 1, column N: WHY"; keep WHY.
    std::string why = e.what();
    const auto colon = why.find(": ", why.find("column"));
    if (colon != std::string::npos) why.erase(0, colon + 2);
    throw fail("not valid JSON at byte " + std::to_string(e.byte) + ": " + why);
  } catch (const nlohmann::json::exception& e) {  // e.g. out_of_range: a number beyond a double
    std::string why = e.what();
    if (const auto bracket = why.find("] "); bracket != std::string::npos) why.erase(0, bracket + 2);
    throw fail("not valid JSON: " + why);
  }
  if (!j.is_object()) throw fail("expected a JSON object, one document per line");
  const auto text = j.find(text_field_);
  if (text == j.end()) throw fail("no field \"" + text_field_ + "\" (the document text)");
  if (!text->is_string()) throw fail("field \"" + text_field_ + "\" must be a JSON string");
  // The id (spec/KEYS.md): an integer as it is, a string key hashed, none the line number.
  const auto id = j.find(id_field_);
  if (id == j.end() || id->is_null()) {
    doc.id = line_no - 1;
    doc.id_kind = IdKind::line;
  } else if (id->is_number_unsigned()) {
    doc.id = id->get<std::uint64_t>();
    doc.id_kind = IdKind::integer;
  } else if (id->is_string()) {
    key_ = id->get_ref<const std::string&>();  // copied: the id field may be the text field too
    doc.key = key_;
    doc.id = key_hash_(key_);
    doc.id_kind = IdKind::key;
  } else if (id->is_number_float()) {  // nlohmann reads an integer beyond 64 bits as a double too
    throw fail("field \"" + id_field_ +
               "\" must be a string (a key) or an integer in 0..2^64-1, not a number with a fraction or "
               "exponent or beyond 2^64-1 (read as " +
               id->dump() + "); to keep such an id, quote it: a string is a key");
  } else {
    // nlohmann reads -0 as the signed integer 0, which it dumps as 0
    const bool minus_zero = id->is_number_integer() && id->get<std::int64_t>() == 0;
    throw fail("field \"" + id_field_ + "\" must be a string (a key) or an integer in 0..2^64-1, not " +
               (minus_zero ? std::string("-0") : id->dump()));
  }
  text_ = std::move(text->get_ref<std::string&>());
  doc.text = text_;
}

DocumentFormat input_format(const std::string& input, DocumentFormat asked) {
  std::error_code ec;
  const bool is_dir = input != "-" && fs::is_directory(input, ec);
  if (asked == DocumentFormat::automatic) return is_dir ? DocumentFormat::directory : DocumentFormat::jsonl;
  if (asked == DocumentFormat::directory && !is_dir)
    throw Error(errc::usage, "directory input needs a directory, not '" + input + "'");
  if (asked != DocumentFormat::directory && is_dir)
    throw Error(errc::usage, "'" + input + "' is a directory: read it as directory input (or automatic)");
  return asked;
}

}  // namespace text

namespace {

// The regular files under `dir`, as '/'-separated relative paths in byte order: stable across
// platforms and locales, unlike the directory iteration order.
std::vector<std::string> list_files(const fs::path& dir) {
  std::vector<std::string> files;
  std::error_code ec;
  fs::recursive_directory_iterator it(dir, fs::directory_options::none, ec), end;
  fs::path last = dir;  // the entry before a failure: the directory that could not be opened
  for (; !ec && it != end; it.increment(ec)) {
    last = it->path();
    if (it->is_regular_file(ec) && !ec) files.push_back(it->path().lexically_relative(dir).generic_string());
  }
  if (ec) {
    std::error_code is_dir;
    const fs::path where = fs::is_directory(last, is_dir) ? last : last.parent_path();
    throw Error(errc::io, "cannot list directory '" + where.string() + "': " + ec.message(), ec.value());
  }
  std::sort(files.begin(), files.end());
  return files;
}

}  // namespace

struct DocumentSource::Impl {
  DocumentFormat format;
  // A file or stdin: its stream and reader.
  std::optional<io::InputStream> in;
  std::optional<text::DocumentReader> reader;
  // A directory: its files, and the id of the next one.
  fs::path dir;
  std::vector<std::string> paths;
  std::size_t next_file = 0;
  std::string text, decoded;
  std::size_t max_document_bytes = 0;
  std::uint64_t (*key_hash)(std::string_view) = key_id;

  // The whole of `in` into text, at most max_document_bytes of it: a file too large (a huge log,
  // a compressed file that expands without end) is an error, not all of the memory.
  void read_document(io::InputStream& in) {
    text.clear();
    std::array<char, 1 << 16> buf;
    while (in.stream()) {
      in.stream().read(buf.data(), buf.size());
      text.append(buf.data(), static_cast<std::size_t>(in.stream().gcount()));
      if (text.size() > max_document_bytes)
        throw Error(errc::input, in.name() + ": a document longer than " +
                                     std::to_string(max_document_bytes) +
                                     " bytes (the longest document: 64 MiB, or a quarter of the memory "
                                     "bound --memory / memory= where that is less)");
    }
    if (in.stream().bad()) throw Error(errc::io, "read error on " + in.name());
  }
};

DocumentSource::DocumentSource(const std::string& input, DocumentOptions options)
    : impl_(std::make_unique<Impl>()) {
  const DocumentFormat format = text::input_format(input, options.format);
  impl_->format = format;
  if (format == DocumentFormat::directory) {
    impl_->dir = input;
    impl_->paths = list_files(impl_->dir);
    impl_->max_document_bytes = options.max_line_bytes;
    if (options.key_hash) impl_->key_hash = options.key_hash;
    return;
  }
  impl_->in.emplace(input);
  impl_->reader.emplace(impl_->in->stream(), impl_->in->name(), format, std::move(options.id_field),
                        std::move(options.text_field), options.max_line_bytes, options.key_hash);
}

DocumentSource::~DocumentSource() = default;
DocumentSource::DocumentSource(DocumentSource&&) noexcept = default;
DocumentSource& DocumentSource::operator=(DocumentSource&&) noexcept = default;

DocumentFormat DocumentSource::format() const { return impl_->format; }

bool DocumentSource::next(Document& doc) {
  if (impl_->reader)
    return io::reporting_corrupt_stream(*impl_->in, [&] { return impl_->reader->next(doc); });
  if (impl_->next_file >= impl_->paths.size()) return false;
  const std::string& path = impl_->paths[impl_->next_file++];
  io::InputStream in((impl_->dir / path).string());
  impl_->read_document(in);
  // A file saved as UTF-16 (Windows editors) is read as the text it holds, not as its bytes.
  try {
    if (text::decode_utf16_with_bom(impl_->text, impl_->decoded)) impl_->text.swap(impl_->decoded);
  } catch (const Error& e) {
    throw Error(e.code(), in.name() + ": " + e.detail());
  }
  doc.text = impl_->text;
  doc.line = 0;
  doc.key = path;
  doc.id = impl_->key_hash(path);
  doc.id_kind = IdKind::key;
  return true;
}

const std::vector<std::string>& DocumentSource::paths() const { return impl_->paths; }

DocumentSource::Position DocumentSource::position() const {
  if (impl_->in) return {impl_->in->bytes_read(), impl_->in->size(), true};
  return {impl_->next_file, impl_->paths.size(), false};
}

void DocumentSource::write_paths(const std::string& file) const {
  KeyMapBuilder keys;
  for (const std::string& path : impl_->paths) keys.add(impl_->key_hash(path), IdKind::key, path, 0);
  keys.write(file);
}

DocumentFormat document_format(std::string_view name) {
  if (name == "auto") return DocumentFormat::automatic;
  if (name == "jsonl") return DocumentFormat::jsonl;
  if (name == "lines") return DocumentFormat::lines;
  if (name == "dir") return DocumentFormat::directory;
  throw Error(errc::usage, "unknown input format '" + std::string(name) + "' (auto, jsonl, lines or dir)");
}

std::vector<std::string> read_stopwords_file(const std::string& path) {
  constexpr std::size_t kMaxLineBytes = std::size_t{1} << 20;  // no stopword is longer
  try {
    io::InputStream in(path);  // as every input: .gz and .zst decoded
    std::vector<std::string> words;
    std::string word;
    while (in.next_line(word, kMaxLineBytes)) {
      if (!word.empty() && word.back() == '\r') word.pop_back();
      if (!word.empty()) words.push_back(word);
    }
    return words;
  } catch (const Error& e) {
    throw Error(e.code(), "stopwords file: " + e.detail());
  }
}

}  // namespace simdex
