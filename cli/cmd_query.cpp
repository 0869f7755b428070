// simdex query: fingerprints in (arguments or stdin lines), hits out.
#include <optional>
#include <string>
#include <vector>

#include "cli/commands.h"
#include "cli/keys_option.h"
#include "cli/lines.h"
#include "cli/output.h"
#include "cli/search_options.h"
#include "cli/text_options.h"
#include "io/input_stream.h"
#include "simdex/index.h"

namespace simdex::cli {

namespace {
struct QueryArgs : SearchArgs {
  std::vector<std::string> fingerprints;
  bool json = false;
  bool text = false;
  TextOptions text_options;
  KeysArg keys;
};

// `query_id` is set for --text queries (documents have ids): then the line starts with it.
void print_hit(Output& out, std::optional<uint64_t> query_id, uint64_t query, const Hit& hit, bool json,
               const KeyMap* keys) {
  auto& b = out.buffer();
  if (json) {
    b.push_back('{');
    if (query_id) fmt::format_to(std::back_inserter(b), R"("query_id":{},)", *query_id);
    fmt::format_to(std::back_inserter(b), R"("query":{},"fingerprint":{},"distance":{},"ids":[)", query,
                   hit.fingerprint, hit.distance);
  } else {
    if (query_id) fmt::format_to(std::back_inserter(b), "{}\t", *query_id);
    fmt::format_to(std::back_inserter(b), "{}\t{}\t{}\t", query, hit.fingerprint, hit.distance);
  }
  append_ids(out, hit.ids, keys, json);
  out.print("{}\n", json ? "]}" : "");
}

void run_query(const QueryArgs& a) {
  const Index index = Index::open(a.index);
  const std::optional<KeyMap> keys = open_keys(a.keys, a.index);
  const unsigned k = index.search_distance(a.k);
  Output out;
  std::vector<Hit> hits;
  auto run_one = [&](uint64_t q, std::optional<uint64_t> query_id = std::nullopt) {
    index.query(q, k, hits);
    for (const Hit& h : hits) print_hit(out, query_id, q, h, a.json, keys ? &*keys : nullptr);
    index.check_unchanged();  // the ids were read from the mapping just now
  };
  if (a.text) {
    if (a.fingerprints.size() > 1)
      throw Error(errc::usage, "--text takes one INPUT of documents (or - for stdin)");
    const std::string input = a.fingerprints.empty() ? "-" : a.fingerprints[0];
    for_each_text_fingerprint(input, a.text_options, "", [&](uint64_t id, uint64_t fp) { run_one(fp, id); });
    return out.close();
  }
  auto parse = [](std::string_view text, const std::string& where) {
    const auto fp = parse_fingerprint(text);
    if (!fp)
      throw Error(errc::input,
                  where + ": '" + std::string(text.substr(0, 40)) + "' is not a 64-bit fingerprint");
    return *fp;
  };
  if (!a.fingerprints.empty()) {
    for (std::size_t i = 0; i < a.fingerprints.size(); ++i)
      run_one(parse(a.fingerprints[i], "argument " + std::to_string(i + 1)));
    return out.close();
  }
  io::InputStream in("-");
  std::string line;
  while (in.next_line(line)) {
    const std::string_view text = chomp(line);
    if (is_blank(text)) continue;
    run_one(parse(text, in.name() + ":" + std::to_string(in.line_number())));
  }
  out.close();
}
}  // namespace

void add_query_command(CLI::App& app) {
  auto args = std::make_shared<QueryArgs>();
  auto* cmd = app.add_subcommand("query", "Find the stored fingerprints within k bits of each query");
  cmd->footer(
      "Queries come as arguments, or one a line on stdin (decimal or 0x-hex).\n"
      "Output, one line per hit, sorted by (distance, fingerprint) for each query in input order:\n"
      "  QUERY<TAB>FINGERPRINT<TAB>DISTANCE<TAB>ID[,ID...]     (decimal)\n"
      "or with --json, JSON Lines: {\"query\":Q,\"fingerprint\":F,\"distance\":D,\"ids\":[...]}\n"
      "(numbers are unsigned 64-bit; parse them as such, not as doubles).\n"
      "A query with no hit prints nothing.\n\n"
      "With --text the argument is one INPUT of documents (default stdin; JSON Lines, one text a line,\n"
      "or a directory, as for `simdex fingerprint`), each document is fingerprinted and queried, and\n"
      "each line starts with the document's id: QUERY_ID<TAB>QUERY<TAB>FINGERPRINT<TAB>DISTANCE<TAB>IDS\n"
      "(JSON: an extra \"query_id\" field).\n\n"
      "Example: printf '0x1f2e3d4c5b6a7988\\n' | simdex query docs.sdx -k 2");
  add_search_options(*cmd, *args, false);
  cmd->add_option("fingerprint", args->fingerprints, "Query fingerprints (default: read stdin)");
  cmd->add_flag("--json", args->json, "JSON Lines output");
  add_keys_option(*cmd, args->keys);
  cmd->add_flag("--text", args->text, "Query with documents instead of fingerprints");
  add_text_options(*cmd, args->text_options);
  cmd->callback([args] { run_query(*args); });
}

}  // namespace simdex::cli
