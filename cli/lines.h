// Parsing of the line formats the CLI reads: fingerprints (decimal or 0x-hex) and ids (decimal).
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "cli/progress.h"
#include "io/input_stream.h"

namespace simdex::cli {

// Decimal (0..18446744073709551615) or 0x/0X followed by 1..16 hex digits; nothing else.
std::optional<uint64_t> parse_fingerprint(std::string_view s);
std::optional<uint64_t> parse_id(std::string_view s);  // decimal only
// Why `text` is refused as a fingerprint: "'TEXT' is not a 64-bit fingerprint (decimal or 0x followed
// by up to 16 hex digits)", and the likely mix-up (a space where the TAB goes, documents).
std::string not_a_fingerprint(std::string_view text);

// A number with an optional K/M/G/T suffix (either case) meaning powers of `base`, and with `bytes`
// an optional trailing B or iB: "512M", "2GiB", "1e9", "250k". Nothing when it is not one.
std::optional<double> parse_scaled(const std::string& text, double base, bool bytes);

// A memory size such as "512M", "2G" or "1500000" (bytes), K/M/G/T meaning powers of 1024 (an optional
// trailing B or iB); at least 1M. Throws Error(usage) naming `option`.
uint64_t parse_size(const std::string& text, const std::string& option);

// Drops one trailing '\r' (files written on Windows).
inline std::string_view chomp(std::string_view line) {
  return !line.empty() && line.back() == '\r' ? line.substr(0, line.size() - 1) : line;
}
// A UTF-8 byte order mark (EF BB BF), which some Windows tools write first in a text file: not part
// of the first line's text.
inline std::string_view drop_byte_order_mark(std::string_view first_line) {
  return first_line.starts_with("\xEF\xBB\xBF") ? first_line.substr(3) : first_line;
}
// Line `number` (1-based) of a file as its text: chomped, and the first without a byte order mark.
inline std::string_view line_text(std::string_view line, uint64_t number) {
  return chomp(number == 1 ? drop_byte_order_mark(line) : line);
}
inline bool is_blank(std::string_view line) {
  return line.find_first_not_of(" \t") == std::string_view::npos;
}

// Reads `FINGERPRINT` or `FINGERPRINT<TAB>ID` lines; the first data line decides which, and every
// other line must match. Blank lines are skipped; without ids the id is the 0-based line number.
class PairReader {
 public:
  explicit PairReader(std::string source_name) : source_(std::move(source_name)) {}
  // A reader of a range of the input that starts after `lines_before` lines, where the first data
  // line (has_id of it) decided `with_ids`: the ids and error lines are those of a reader of it all.
  // An input of several files: `lines_before` counts those of the files before (the ids of lines
  // without one), `lines_before_in_file` those of this file before the range (the error lines).
  PairReader(std::string source_name, uint64_t lines_before, std::optional<bool> with_ids,
             std::optional<uint64_t> lines_before_in_file = std::nullopt)
      : source_(std::move(source_name)),
        line_(lines_before_in_file.value_or(lines_before)),
        id_offset_(lines_before - line_),
        with_ids_(with_ids ? *with_ids : -1) {}
  // Returns the pair of one line, nothing for a blank line; throws Error(input) naming the line.
  std::optional<std::pair<uint64_t, uint64_t>> parse(std::string_view line);
  // Whether a line is FINGERPRINT<TAB>ID rather than a lone one; nothing for a blank line.
  static std::optional<bool> has_id(std::string_view line);

 private:
  [[noreturn]] void fail(const std::string& what) const;
  std::string source_;
  uint64_t line_ = 0;       // lines seen (of this file)
  uint64_t id_offset_ = 0;  // lines of the files before it
  int with_ids_ = -1;       // unknown until the first data line
};

// Every pair of `in` (read by a PairReader) to fn(fingerprint, id), in input order, showing on
// `progress` the bytes read under `stage`.
void for_each_pair_line(io::InputStream& in, Progress& progress, std::string_view stage,
                        const std::function<void(uint64_t fingerprint, uint64_t id)>& fn);

}  // namespace simdex::cli
