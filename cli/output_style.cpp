#include "cli/output_style.h"

#include "cli/output.h"
#include "simdex/error.h"

namespace simdex::cli {

CLI::Option* add_json_flag(CLI::App& cmd, OutputStyle& style, const std::string& what) {
  return cmd.add_flag("--json", style.json, what);
}

void add_base_flags(CLI::App& cmd, OutputStyle& style, bool hex_default) {
  style.hex_default = hex_default;
  auto* hex =
      cmd.add_flag("--hex", style.hex_flag,
                   std::string("Fingerprints as 0x and 16 hex digits") + (hex_default ? " (default)" : ""));
  auto* dec = cmd.add_flag("--dec", style.dec_flag,
                           std::string("Fingerprints in decimal") + (hex_default ? "" : " (default)"));
  hex->excludes(dec);
}

void add_format_options(CLI::App& cmd, std::string& format, OutputStyle& style) {
  cmd.add_option("--format", format, "tsv (default), json (JSON Lines, as --json) or seomoz")
      ->check(CLI::IsMember({"tsv", "json", "seomoz"}));
  add_json_flag(cmd, style, "JSON Lines output (the same as --format json)");
  add_base_flags(cmd, style, false);
}

void resolve_format(std::string& format, OutputStyle& style, bool ids, bool keys) {
  if (style.json && !format.empty() && format != "json")
    throw Error(errc::usage, "--format " + format + " and --json exclude each other");
  if (format.empty()) format = "tsv";
  if (format == "seomoz") {
    if (style.hex()) throw Error(errc::usage, "--format seomoz prints decimal fingerprints; drop --hex");
    if (ids || keys)
      throw Error(errc::usage, std::string("--format seomoz prints fingerprints only; drop ") +
                                   (ids ? "--ids" : "--keys"));
  }
  if (style.json) format = "json";
  style.json = format == "json";
}

void append_fingerprint(fmt::memory_buffer& b, uint64_t fingerprint, const OutputStyle& style) {
  auto out = fmt::appender(b);
  if (!style.hex())
    append_decimal(b, fingerprint);
  else if (style.json)
    fmt::format_to(out, "\"0x{:016x}\"", fingerprint);
  else
    fmt::format_to(out, "0x{:016x}", fingerprint);
}

}  // namespace simdex::cli
