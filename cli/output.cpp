#include "cli/output.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <exception>
#include <filesystem>
#include <new>
#include <utility>

#include "fingerprint/utf8.h"
#include "simdex/error.h"

namespace simdex::cli {

namespace {
std::string deferred_error;
}

Output::Output() : Output("-") {}

Output::Output(const std::string& path) : file_(path.empty() ? "-" : path) {}

Output::~Output() {
  if (closed_ || !file_.in_place()) return;  // an unpublished file: its temporary file is removed
  // Left by an error (a key map's line that cannot be read while a hit's line is printed): the
  // lines printed whole are kept, the one being printed goes (a reader gets no half a JSON line).
  if (std::uncaught_exceptions() > 0 && flush_at_ != kUnitBytes) buffer_.resize(complete_lines_bytes());
  try {
    close();
  } catch (const Error& e) {
    if (deferred_error.empty()) deferred_error = e.what();
  }
}

std::size_t Output::complete_lines_bytes() {
  const std::size_t from = std::min(searched_, buffer_.size());  // (only ever appended to, but be safe)
  searched_ = buffer_.size();
  const void* last = ::memrchr(buffer_.data() + from, '\n', buffer_.size() - from);
  return last ? static_cast<std::size_t>(static_cast<const char*>(last) - buffer_.data()) + 1 : 0;
}

void Output::flush_complete_lines() {
  if (flush_at_ == kUnitBytes) return flush();  // a unit is written whole or not at all, as it is
  const std::size_t complete = complete_lines_bytes();
  const std::size_t tail = buffer_.size() - complete;
  if (tail > kLineHeld) return flush();
  if (complete == 0) return;
  try {
    file_.write(std::string_view(buffer_.data(), complete));
  } catch (...) {
    buffer_.clear();  // as flush(): the bytes cannot be written, and the destructor must not retry
    searched_ = 0;
    throw;
  }
  std::memmove(buffer_.data(), buffer_.data() + complete, tail);  // the line being printed
  buffer_.resize(tail);
  searched_ = tail;  // (no '\n' in it)
}

void Output::flush() {
  unit_written_ = unit_written_ || buffer_.size() > unit_start_;
  unit_start_ = 0;
  if (buffer_.size() == 0) return;  // nothing (after finish(), a compressed stream takes no more)
  // Cleared also on failure: the bytes cannot be written, and the destructor must not retry.
  struct Clear {
    Output& o;
    ~Clear() {
      o.buffer_.clear();
      o.searched_ = 0;
    }
  } clear{*this};
  file_.write(std::string_view(buffer_.data(), buffer_.size()));
}

void Output::finish() {
  flush();
  file_.finish();
}

void Output::close() {
  closed_ = true;
  flush();
  file_.close();
}

std::string take_deferred_error() { return std::exchange(deferred_error, std::string()); }

std::string failure_message(const std::exception& e) {
  if (dynamic_cast<const std::bad_alloc*>(&e) == nullptr) return e.what();
  return std::string("out of memory (") + e.what() +
         "): a smaller --memory, fewer --threads, or a higher limit on the process's memory (ulimit -v) "
         "may let it run";
}

void append_json_string(fmt::memory_buffer& b, std::string_view text) {
  // JSON text is UTF-8: bytes that are not (a file name, a query line) become U+FFFD, as a
  // document's text or key does (spec/FINGERPRINT.md step 1).
  std::string repaired;
  if (!text::is_valid_utf8(text)) {
    text::repair_utf8(text, repaired);
    text = repaired;
  }
  b.push_back('"');
  for (char c : text) {
    const auto u = static_cast<unsigned char>(c);
    if (c == '"' || c == '\\') {
      b.push_back('\\');
      b.push_back(c);
    } else if (u < 0x20 || u == 0x7f) {
      fmt::format_to(fmt::appender(b), "\\u{:04x}", u);
    } else {
      b.push_back(c);
    }
  }
  b.push_back('"');
}

std::string printable(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size(); ++i) {
    const auto u = static_cast<unsigned char>(text[i]);
    if (u >= 0x80) {  // a UTF-8 sequence as it is, except what a reader would not see
      std::size_t bad = 0;
      const std::size_t n = text::sequence_length(text, i, bad);
      const std::string_view sequence = text.substr(i, n);
      if (n == 0) {  // not UTF-8: the bytes shown
        for (std::size_t k = 0; k < bad; ++k)
          out += fmt::format("\\x{:02x}", static_cast<unsigned char>(text[i + k]));
        i += bad - 1;
        continue;
      }
      if (u == 0xc2 && static_cast<unsigned char>(sequence[1]) <= 0x9f)  // a C1 control
        out += fmt::format("\\u{:04x}", static_cast<unsigned char>(sequence[1]));
      else if (sequence == "\xEF\xBB\xBF")  // a byte order mark, invisible otherwise
        out += "\\ufeff";
      else
        out += sequence;
      i += n - 1;
    } else if (u == '\t') {
      out += "\\t";
    } else if (u == '\n') {
      out += "\\n";
    } else if (u == '\r') {
      out += "\\r";
    } else if (u < 0x20 || u == 0x7f) {
      out += fmt::format("\\x{:02x}", u);
    } else {
      out += text[i];
    }
  }
  return out;
}

std::string temp_dir_for(const std::string& tmp_dir_flag, const std::string& output) {
  if (!tmp_dir_flag.empty()) return tmp_dir_flag;
  if (output == "-") return "";
  const std::string dir = std::filesystem::path(output).parent_path().string();
  return dir.empty() ? "." : dir;
}

}  // namespace simdex::cli
