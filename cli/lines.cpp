#include "cli/lines.h"

#include <array>
#include <cctype>
#include <charconv>
#include <cmath>
#include <string>

#include "cli/output.h"
#include "simdex/error.h"

namespace simdex::cli {

namespace {
// Each byte's value as a hex digit; 0xff for a byte that is none.
constexpr auto kHexDigit = [] {
  std::array<uint8_t, 256> t{};
  t.fill(0xff);
  for (int c = 0; c < 10; ++c) t['0' + c] = static_cast<uint8_t>(c);
  for (int c = 0; c < 6; ++c) t['a' + c] = t['A' + c] = static_cast<uint8_t>(10 + c);
  return t;
}();

// 1 to 16 hex digits, nothing else, with no branch per digit (a build parses every line's).
std::optional<uint64_t> parse_hex(std::string_view s) {
  if (s.empty() || s.size() > 16) return std::nullopt;
  uint64_t v = 0;
  uint8_t seen = 0;
  for (const char c : s) {
    const uint8_t d = kHexDigit[static_cast<uint8_t>(c)];
    seen |= d;
    v = v << 4 | (d & 0xf);
  }
  if (seen & 0xf0) return std::nullopt;
  return v;
}

// Where the TAB before the id is in a chomped line (npos: a lone FINGERPRINT); nothing for a blank line.
std::optional<std::size_t> id_tab(std::string_view chomped) {
  if (is_blank(chomped)) return std::nullopt;
  return chomped.find('\t');
}
}  // namespace

std::optional<uint64_t> parse_fingerprint(std::string_view s) {
  if (s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
    s.remove_prefix(2);
    return parse_hex(s);
  }
  return parse_id(s);
}

std::optional<uint64_t> parse_id(std::string_view s) {
  // from_chars takes digits only (no sign, no spaces; none at all fails) and fails past 2^64 - 1.
  uint64_t v = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v, 10);
  if (ec != std::errc() || end != s.data() + s.size()) return std::nullopt;
  return v;
}

void PairReader::fail(const std::string& what) const {
  throw Error(errc::input, source_ + ":" + std::to_string(line_) + ": " + what);
}

std::optional<bool> PairReader::has_id(std::string_view line) {
  const auto tab = id_tab(chomp(drop_byte_order_mark(line)));  // no data line starts with one
  if (!tab) return std::nullopt;
  return *tab != std::string_view::npos;
}

std::string not_a_fingerprint(std::string_view text) {
  std::string message = "'" + printable(text.substr(0, 40)) +
                        "' is not a 64-bit fingerprint (decimal or 0x followed by up to 16 hex digits)";
  const std::size_t space = text.find(' ');
  if (text.substr(0, 1) == "{")
    message += "; documents? --text fingerprints them first";
  else if (space != std::string_view::npos && parse_fingerprint(text.substr(0, space)))
    message += "; a TAB separates FINGERPRINT and ID, not a space";
  return message;
}

std::optional<std::pair<uint64_t, uint64_t>> PairReader::parse(std::string_view line) {
  ++line_;
  line = line_text(line, line_);
  const auto tab_at = id_tab(line);  // the line is chomped and searched once
  if (!tab_at) return std::nullopt;
  const std::size_t tab = *tab_at;
  const bool has_id = tab != std::string_view::npos;
  if (with_ids_ < 0) with_ids_ = has_id;
  if (has_id != static_cast<bool>(with_ids_))
    fail(with_ids_ ? "expected FINGERPRINT<TAB>ID like the lines before"
                   : "expected a lone FINGERPRINT like the lines before");
  const std::string_view fp_text = has_id ? line.substr(0, tab) : line;
  const auto fp = parse_fingerprint(fp_text);
  if (!fp) fail(not_a_fingerprint(fp_text));
  if (!has_id) return std::pair{*fp, id_offset_ + line_ - 1};
  const std::string_view id_text = line.substr(tab + 1);
  const auto id = parse_id(id_text);
  if (!id) fail("'" + printable(id_text.substr(0, 40)) + "' is not a decimal 64-bit id");
  return std::pair{*fp, *id};
}

void for_each_pair_line(io::InputStream& in, Progress& progress, std::string_view stage,
                        const std::function<void(uint64_t, uint64_t)>& fn) {
  PairReader reader(in.name());
  auto show = [&] { progress.update(stage, in.bytes_read(), in.size(), Progress::Unit::bytes); };
  std::string line;
  io::reporting_corrupt_stream(in, [&] {
    for (uint64_t n = 1; in.next_line(line); ++n) {
      if (auto pair = reader.parse(line)) fn(pair->first, pair->second);
      if ((n & 0xfff) == 0 && progress.enabled()) show();  // a clock read per 4096 lines, not per line
    }
  });
  show();
}

std::optional<double> parse_scaled(const std::string& text, double base, bool bytes) {
  std::size_t end = 0;
  double value = 0;
  try {
    value = std::stod(text, &end);
  } catch (const std::exception&) {
    return std::nullopt;
  }
  std::string unit = text.substr(end);
  for (auto& c : unit) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  if (bytes && unit.size() > 1 && unit.back() == 'B') unit.pop_back();
  if (bytes && unit.size() > 1 && unit.back() == 'I') unit.pop_back();
  if (bytes && unit == "B") unit.clear();
  const std::string units = "KMGT";
  if (unit.empty()) return value;
  if (unit.size() != 1 || units.find(unit[0]) == std::string::npos) return std::nullopt;
  return value * std::pow(base, static_cast<double>(units.find(unit[0]) + 1));
}

uint64_t parse_size(const std::string& text, const std::string& option) {
  const std::optional<double> bytes = parse_scaled(text, 1024, true);
  if (bytes && *bytes > 1e18)  // beyond any machine's memory, and near uint64's end
    throw Error(errc::usage,
                option + " " + text + ": too large (at most 1e18 bytes), expected a size such as 512M or 2G");
  if (!bytes || std::isnan(*bytes))
    throw Error(errc::usage,
                option + " " + text +
                    ": not a size: expected a number, then K, M, G or T (powers of 1024), such as "
                    "512M or 2G");
  if (!(*bytes >= 1 << 20))
    throw Error(errc::usage,
                option + " " + text + ": too small, expected a size of at least 1M, such as 512M or 2G");
  return static_cast<uint64_t>(*bytes);
}

}  // namespace simdex::cli
