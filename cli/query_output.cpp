#include "cli/query_output.h"

#include <filesystem>

#include "cli/keys_option.h"
#include "cli/lines.h"
#include "cli/output.h"
#include "simdex/error.h"

namespace simdex::cli {

void print_hit(Output& out, std::optional<uint64_t> query_id, uint64_t query, const Hit& hit,
               const OutputStyle& style, const MappedKeyMap* keys,
               std::optional<std::string_view> query_key) {
  auto& b = out.buffer();
  auto it = fmt::appender(b);
  if (style.json) {
    b.push_back('{');
    if (query_id) {
      b.append(std::string_view(R"("query_id":)"));
      append_query_id(b, *query_id, query_key, true);
      b.push_back(',');
    }
    b.append(std::string_view(R"("query":)"));
    append_fingerprint(b, query, style);
    b.append(std::string_view(R"(,"fingerprint":)"));
    append_fingerprint(b, hit.fingerprint, style);
    fmt::format_to(it, R"(,"distance":{},"ids":[)", hit.distance);
  } else {
    if (query_id) {
      append_query_id(b, *query_id, query_key, false);
      b.push_back('\t');
    }
    append_fingerprint(b, query, style);
    b.push_back('\t');
    append_fingerprint(b, hit.fingerprint, style);
    fmt::format_to(it, "\t{}\t", hit.distance);
  }
  append_ids(out, hit.ids, keys, style.json);
  out.print("{}\n", style.json ? "]}" : "");
}

void print_answer_json(Output& out, uint64_t query, const std::vector<Hit>& hits, const OutputStyle& style,
                       const MappedKeyMap* keys) {
  auto& b = out.buffer();
  b.append(std::string_view(R"({"query":)"));
  append_fingerprint(b, query, style);
  b.append(std::string_view(R"(,"hits":[)"));
  for (std::size_t i = 0; i < hits.size(); ++i) {
    b.append(std::string_view(i ? R"(,{"fingerprint":)" : R"({"fingerprint":)"));
    append_fingerprint(b, hits[i].fingerprint, style);
    fmt::format_to(fmt::appender(b), R"(,"distance":{},"ids":[)", hits[i].distance);
    append_ids(out, hits[i].ids, keys, true);
    b.append(std::string_view("]}"));
  }
  out.print("]}}\n");
}

uint64_t parse_query(std::string_view text, const std::string& where) {
  const auto fp = parse_fingerprint(text);
  if (fp) return *fp;
  std::string message = where + ": " + not_a_fingerprint(text);
  // The two likely mix-ups: `simdex fingerprint`'s output, and a file named where queries go.
  const auto tab = text.find('\t');
  std::error_code ec;
  if (tab != std::string_view::npos && parse_fingerprint(text.substr(0, tab)))
    message +=
        " (query reads one fingerprint a line; `simdex join INDEX FILE` reads FINGERPRINT<TAB>ID lines "
        "and prints each query's id)";
  else if (text.find('\0') == std::string_view::npos &&
           std::filesystem::is_regular_file(std::string(text), ec))
    message +=
        " (to query the fingerprints in a file: `simdex query INDEX < FILE`, or `simdex join INDEX FILE`)";
  throw Error(errc::input, message);
}

}  // namespace simdex::cli
