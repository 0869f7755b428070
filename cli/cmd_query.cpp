// simdex query: fingerprints in (arguments or stdin lines), hits out; --serve answers a co-process.
#include <unistd.h>

#include <optional>
#include <string>
#include <vector>

#include "cli/commands.h"
#include "cli/index_input.h"
#include "cli/keys_option.h"
#include "cli/lines.h"
#include "cli/output.h"
#include "cli/output_style.h"
#include "cli/progress.h"
#include "cli/query_output.h"
#include "cli/search_options.h"
#include "cli/serve.h"
#include "cli/text_options.h"
#include "io/input_stream.h"
#include "simdex/index.h"

namespace simdex::cli {

namespace {
struct QueryArgs : SearchArgs {
  std::vector<std::string> fingerprints;
  OutputStyle style;
  bool text = false, serve = false;
  TextOptions text_options;
  KeysArg keys;
};

void run_query(const QueryArgs& a) {
  if (a.serve) {
    if (a.text || !a.fingerprints.empty())
      throw Error(errc::usage, "--serve reads fingerprint lines from stdin: no arguments, no --text");
    return serve_queries(a.index, a.k, a.style, a.keys, a.open_options());
  }
  const bool queries_from_stdin = a.fingerprints.empty() || (a.text && a.fingerprints[0] == "-");
  refuse_two_stdin_inputs(a.index, queries_from_stdin ? "-" : "", "queries",
                          "give them as arguments (or with --text, as a file)");
  const IndexInput opened(a.index, a.open_options());
  const Index& index = *opened;
  const std::optional<MappedKeyMap> keys = open_keys(a.keys, a.index);
  const unsigned k = index.search_distance(a.k);
  Output out;
  // A bar for queries read from a file or pipe, not typed at a terminal nor mixed with hits shown on one.
  Progress progress(a.progress || (Progress::wanted(a.quiet) && ::isatty(STDIN_FILENO) == 0 &&
                                   ::isatty(STDOUT_FILENO) == 0));
  std::vector<Hit> hits;
  auto run_one = [&](uint64_t q, std::optional<uint64_t> query_id = std::nullopt,
                     std::optional<std::string_view> key = std::nullopt) {
    index.query(q, k, hits);
    for (const Hit& h : hits)
      print_hit(out, query_id, q, h, a.style, keys ? &*keys : nullptr, keys ? key : std::nullopt);
    index.check_unchanged();  // the ids were read from the mapping just now
  };
  if (a.text) {
    if (a.fingerprints.size() > 1)
      throw Error(errc::usage, "--text takes one INPUT of documents (or - for stdin)");
    const std::string input = a.fingerprints.empty() ? "-" : a.fingerprints[0];
    require_index_settings(index, a.index, a.text_options);
    refuse_key_map_over(a.text_options.paths_file, a.index);
    TextOptions text_options = a.text_options;
    text_options.keys_printed = keys_wanted(a.keys);
    PendingKeyMap keys_of_queries = for_each_text_fingerprint(
        input, text_options, "",
        [&](uint64_t id, uint64_t fp, std::optional<std::string_view> key) { run_one(fp, id, key); },
        &progress, "query");
    progress.finish();
    out.close();
    return keys_of_queries.commit();
  }
  if (!a.fingerprints.empty()) {
    // Arguments are checked before any is answered: a bad one is a usage error (exit 2), nothing printed.
    std::vector<uint64_t> queries;
    for (std::size_t i = 0; i < a.fingerprints.size(); ++i) try {
        queries.push_back(parse_query(a.fingerprints[i], "argument " + std::to_string(i + 1)));
      } catch (const Error& e) {
        throw Error(errc::usage, e.detail());
      }
    for (const uint64_t q : queries) run_one(q);
    return out.close();
  }
  io::InputStream in("-");
  std::string line;
  io::reporting_corrupt_stream(in, [&] {
    while (in.next_line(line)) {
      if ((in.line_number() & 0xfff) == 0)
        progress.update("query", in.bytes_read(), in.size(), Progress::Unit::bytes);
      const std::string_view text = line_text(line, in.line_number());
      if (is_blank(text)) continue;
      run_one(parse_query(text, in.name() + ":" + std::to_string(in.line_number())));
    }
  });
  progress.update("query", in.bytes_read(), in.size(), Progress::Unit::bytes);
  progress.finish();
  out.close();
}
}  // namespace

void add_query_command(CLI::App& app) {
  auto args = std::make_shared<QueryArgs>();
  auto* cmd = app.add_subcommand("query", "Find the stored fingerprints within k bits of each query");
  cmd->footer(
      "Queries come as arguments, or one a line on stdin (decimal or 0x-hex).\n"
      "Output, one line per hit, sorted by (distance, fingerprint) for each query in input order:\n"
      "  QUERY<TAB>FINGERPRINT<TAB>DISTANCE<TAB>ID[,ID...]     (decimal; --hex: 0x and 16 digits)\n"
      "or with --json, JSON Lines: {\"query\":Q,\"fingerprint\":F,\"distance\":D,\"ids\":[...]}\n"
      "(numbers are unsigned 64-bit; parse them as such, not as doubles; with --hex fingerprints are\n"
      "strings \"0x...\"). A query with no hit prints nothing. Output is block-buffered.\n\n"
      "With --serve, simdex answers another program line by line (a co-process): each query line of\n"
      "stdin gets its hits as above and then one empty line, written at once (a query without hits\n"
      "gets the empty line alone); with --json one line per query:\n"
      "  {\"query\":Q,\"hits\":[{\"fingerprint\":F,\"distance\":D,\"ids\":[...]},...]}\n"
      "A line that is not a fingerprint is answered too: the message on stderr and the empty line\n"
      "(JSON: {\"query\":\"LINE\",\"error\":\"...\"}). SIGHUP reopens INDEX: publish a new index by\n"
      "renaming it over INDEX (as `simdex build` does), then `kill -HUP` the server; if the new file\n"
      "cannot be opened the old index is kept and the reason goes to stderr. An INDEX overwritten in\n"
      "place (cp over it) is reopened by the query that finds it changed, which is answered from the new\n"
      "file; if that cannot be opened (cut short, say), the server ends with file_changed (exit 1).\n"
      "An answer that fails part way (a malformed key map line) is dropped whole and answered as an\n"
      "error. Read stderr or redirect it (2>>server.log): a full stderr pipe makes the server wait.\n\n"
      "With --text the argument is one INPUT of documents (default stdin; JSON Lines, one text a line,\n"
      "or a directory, as for `simdex fingerprint`), each document is fingerprinted and queried, and\n"
      "each line starts with the document's id: QUERY_ID<TAB>QUERY<TAB>FINGERPRINT<TAB>DISTANCE<TAB>IDS\n"
      "(JSON: an extra \"query_id\" field); with --keys, a document's key if it has one.\n\n"
      "INDEX may be - (stdin: mapped when it is a file, read into memory from a pipe) when the queries are\n"
      "arguments or a --text file.\n\n"
      "Examples:\n"
      "  printf '0x1f2e3d4c5b6a7988\\n' | simdex query docs.sdx -k 2\n"
      "  coproc simdex query --serve --json docs.sdx");
  add_search_options(*cmd, *args, false);
  add_preload_option(*cmd, *args);
  cmd->add_option("fingerprint", args->fingerprints, "Query fingerprints (default: read stdin)");
  add_json_flag(*cmd, args->style);
  add_base_flags(*cmd, args->style, false);
  cmd->add_flag("--serve", args->serve,
                "Answer query lines from stdin one at a time, each flushed at once and ended by an empty "
                "line; SIGHUP reopens INDEX");
  add_keys_option(*cmd, args->keys);
  cmd->add_flag("--text", args->text, "Query with documents instead of fingerprints");
  add_text_options(*cmd, args->text_options, true);
  cmd->callback([args] { run_query(*args); });
}

}  // namespace simdex::cli
