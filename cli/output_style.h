// The output switches shared by every command that prints results: --json (JSON Lines) and, where
// fingerprints are printed, --hex / --dec; each command keeps its own default base.
#pragma once

#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <cstdint>

namespace simdex::cli {

struct OutputStyle {
  bool json = false;
  bool hex_default = false;  // the command's own default: fingerprint prints hex, the others decimal
  bool hex_flag = false, dec_flag = false;
  bool hex() const { return hex_flag || (hex_default && !dec_flag); }
};

// --json, "JSON Lines output" unless `what` says more.
CLI::Option* add_json_flag(CLI::App& cmd, OutputStyle& style, const std::string& what = "JSON Lines output");
// --hex and --dec (exclusive), the default named in their help.
void add_base_flags(CLI::App& cmd, OutputStyle& style, bool hex_default);

// pairs and clusters: --format tsv|json|seomoz, --json (the same as --format json), --hex, --dec.
void add_format_options(CLI::App& cmd, std::string& format, OutputStyle& style);
// Settles --format ("" when not given: tsv) and --json into one (format "json" exactly when
// style.json). Throws Error(usage) for --json with another --format, and for seomoz with --hex,
// `ids` or `keys` (--keys; its lines are decimal fingerprints, as simhash-cpp's).
void resolve_format(std::string& format, OutputStyle& style, bool ids, bool keys = false);

// A fingerprint as `style` prints it: decimal, or 0x and 16 hex digits. In JSON a decimal
// fingerprint is a number and a hex one a string ("0x00000000000000ff"): JSON has no hex numbers.
void append_fingerprint(fmt::memory_buffer& b, uint64_t fingerprint, const OutputStyle& style);

}  // namespace simdex::cli
