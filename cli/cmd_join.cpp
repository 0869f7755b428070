// simdex join: a set of queries (fingerprint lines or --text documents) against an index, all at once.
#include <algorithm>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "cli/batch_output.h"
#include "cli/commands.h"
#include "cli/index_input.h"
#include "cli/keys_option.h"
#include "cli/lines.h"
#include "cli/output.h"
#include "cli/output_style.h"
#include "cli/pair_input.h"
#include "cli/progress.h"
#include "cli/search_options.h"
#include "cli/text_options.h"
#include "io/input_stream.h"
#include "simdex/batch.h"
#include "simdex/builder.h"

namespace simdex::cli {

namespace {
struct JoinArgs : SearchArgs {
  std::string queries = "-";
  std::string memory;  // "": default_memory_bytes()
  OutputStyle style;
  bool sort = false, stats = false, text = false;
  TextOptions text_options;
  KeysArg keys;
};

// What join() holds per query (the query, its permuted copy and sort order per table, with slack):
// a chunk of queries fits in --memory.
constexpr uint64_t bytes_per_query = 64;

// Joins the queries chunk by chunk, each chunk as large as --memory allows; the output is that of one
// join over all of them (with --sort too: chunks follow the input order, and each is sorted).
class ChunkedJoin {
 public:
  ChunkedJoin(const Index& index, const JoinArgs& a, Output& out, Progress& progress)
      : index_(index), a_(a), out_(out), keys_(open_keys(a.keys, a.index)), progress_(progress) {
    memory_ = a.memory.empty() ? default_memory_bytes() : parse_size(a.memory, "--memory");
    chunk_ = std::max<uint64_t>(1024, memory_ / bytes_per_query);
    options_.k = a.k;
    options_.threads = a.threads;
    if (a.force) options_.work_limit = UINT64_MAX;
    options_.with_ids = true;
    options_.progress = [this](std::string_view, uint64_t done, uint64_t total) {
      progress_.update(stage_, done, total);
    };
  }
  // `key`: the query's key, kept for printing with --keys (else ignored).
  void add(const Query& q, std::optional<std::string_view> key) {
    if (queries_.size() == chunk_ || (key_bytes_.size() > memory_ / 2 && queries_.size() >= 1024)) run();
    queries_.push_back(q);
    if (keys_) {
      if (key) key_bytes_.append(*key);
      query_keys_.push_back({key_bytes_.size(), key.has_value()});
    }
  }
  void finish() {
    if (!queries_.empty() || query_count_ == 0) run();
    progress_.finish();
  }
  const BatchStats& stats() const { return stats_; }
  uint64_t query_count() const { return query_count_; }

 private:
  void run() {
    // Each chunk is a stage of its own: its rate and ETA start with it.
    const uint64_t chunk = query_count_ / chunk_ + 1;
    stage_ = chunk == 1 ? "join: queries x tables" : fmt::format("join: chunk {}, queries x tables", chunk);
    std::vector<JoinHit> sorted;  // --sort only
    const BatchStats s = join(index_, queries_, options_, [&](std::span<const JoinHit> batch) {
      if (a_.sort)
        sorted.insert(sorted.end(), batch.begin(), batch.end());
      else
        for (const JoinHit& h : batch) print(h);
    });
    // The order of `simdex query`: queries in input order, each one's hits by (distance, fingerprint).
    std::sort(sorted.begin(), sorted.end(), [](const JoinHit& x, const JoinHit& y) {
      return std::tie(x.query, x.distance, x.fingerprint) < std::tie(y.query, y.distance, y.fingerprint);
    });
    for (const JoinHit& h : sorted) print(h);
    add_stats(s);
    query_count_ += queries_.size();
    queries_.clear();
    key_bytes_.clear();
    query_keys_.clear();
  }
  void print(const JoinHit& h) {
    if (!keys_ || !query_keys_[h.query].present)
      return print_hit(out_, h, a_.style, keys_ ? &*keys_ : nullptr);
    const std::size_t begin = h.query == 0 ? 0 : query_keys_[h.query - 1].end;
    print_hit(out_, h, a_.style, &*keys_,
              std::string_view(key_bytes_).substr(begin, query_keys_[h.query].end - begin));
  }
  void add_stats(const BatchStats& s) {
    if (stats_.tables.empty()) stats_.tables.resize(s.tables.size());
    for (std::size_t t = 0; t < s.tables.size(); ++t) {
      stats_.tables[t].blocks = s.tables[t].blocks;
      stats_.tables[t].read = s.tables[t].read;
      stats_.tables[t].blocks_decoded += s.tables[t].blocks_decoded;
      stats_.tables[t].results += s.tables[t].results;
    }
    stats_.results += s.results;
  }

  const Index& index_;
  const JoinArgs& a_;
  Output& out_;
  const std::optional<MappedKeyMap> keys_;  // --keys
  Progress& progress_;
  std::string stage_;  // of the chunk being joined
  BatchOptions options_;
  uint64_t memory_ = 0, chunk_ = 0, query_count_ = 0;
  std::vector<Query> queries_;
  struct QueryKey {
    std::size_t end;  // where the query's key ends in key_bytes_
    bool present;     // whether it has one
  };
  std::string key_bytes_;             // --keys: the chunk's query keys, one after another
  std::vector<QueryKey> query_keys_;  // one per query of the chunk
  BatchStats stats_;
};

void run_join(const JoinArgs& a) {
  refuse_two_stdin_inputs(a.index, a.queries, "queries", "give the queries as a file");
  refuse_output_over_inputs(a, a.queries);
  Output out(a.output);
  const IndexInput opened(a.index);
  const Index& index = *opened;
  index.search_distance(a.k);  // refuse a k above the index's before reading a possibly long query input
  if (a.text) require_index_settings(index, a.index, a.text_options);  // and texts made another way
  Progress progress(Progress::wanted(a.quiet, a.progress));
  ChunkedJoin joiner(index, a, out, progress);
  // --keys: a query's key comes with its document (--text) or from the key map beside QUERIES, the
  // one `simdex fingerprint` wrote there, when there is one.
  std::optional<MappedKeyMap> query_keys;
  if (keys_wanted(a.keys) && !a.text && a.queries != "-") {
    std::error_code ec;
    if (std::filesystem::exists(key_map_path(a.queries), ec)) query_keys.emplace(key_map_path(a.queries));
  }
  TextOptions text_options = a.text_options;
  text_options.keys_printed = keys_wanted(a.keys);
  bool joining = false;  // an error now comes from the join, not from reading the queries
  try {
    for_each_query(
        a.queries, a.text, text_options, a.index, progress,
        [&, scratch = std::string()](uint64_t fp, uint64_t id, std::optional<std::string_view> key) mutable {
          joining = true;
          joiner.add({fp, id}, query_keys ? query_keys->find(id, scratch) : key);
          joining = false;
        });
  } catch (const Error&) {
    // A malformed line (or a read error): the queries before it are answered first, as `query`
    // answers them, not only those of the chunks already joined.
    if (!joining) {
      try {
        joiner.finish();
      } catch (const Error&) {  // the reading error is the one to report
      }
    }
    throw;
  }
  joiner.finish();
  out.close();
  if (a.stats) {
    const BatchStats& stats = joiner.stats();
    print_table_stats(stats, "hits");
    fmt::print(stderr, "{} queries, {} hits\n", joiner.query_count(), stats.results);
  }
}
}  // namespace

void add_join_command(CLI::App& app) {
  auto args = std::make_shared<JoinArgs>();
  auto* cmd = app.add_subcommand(
      "join", "Find every stored fingerprint within k bits of each query of a set (all cores)");
  cmd->footer(
      "QUERIES holds lines FINGERPRINT or FINGERPRINT<TAB>ID (decimal or 0x-hex; without ids a line's\n"
      "0-based number is its id; .gz and .zst are read as such), or with --text documents as for\n"
      "`simdex fingerprint`. Default: stdin. Output, one line per (query, stored fingerprint) pair:\n"
      "  QUERY_ID<TAB>QUERY_FP<TAB>FINGERPRINT<TAB>DISTANCE<TAB>ID[,ID...]      (decimal)\n"
      "(with --keys, ids print as keys, in JSON as strings in \"ids\": the hits' from the index's key map,\n"
      "a query's from its document with --text or from the key map beside QUERIES, QUERIES.keys.tsv,\n"
      "when there is one)\n"
      "or with --json: {\"query_id\":I,\"query\":Q,\"fingerprint\":F,\"distance\":D,\"ids\":[...]}\n"
      "(--hex: fingerprints as 0x and 16 hex digits, strings in JSON). INDEX may be - (stdin) when\n"
      "QUERIES is a file.\n"
      "Hits stream out as threads find them, in an order that may change from run to run with more\n"
      "than one thread (the set does not; --threads 1 gives one order); --sort\n"
      "prints them as `simdex query` would (queries in input order, then distance, fingerprint) but\n"
      "holds the hits of one chunk of queries in memory first. A query with no hit prints nothing; a\n"
      "repeated query is answered each time.\n"
      "Queries are joined in chunks of --memory / 64 bytes (at least 1024 queries; default memory: a\n"
      "quarter of physical memory), so any number of queries streams through; each chunk decodes the\n"
      "index's blocks again.\n"
      "Per table the queries are permuted, sorted and merged with the table, so each block of the\n"
      "index is decoded at most once per table (--stats shows how many were).\n\n"
      "Examples:\n"
      "  simdex join docs.sdx new.tsv > hits.tsv\n"
      "  simdex join --text docs.sdx new-docs.jsonl --sort --json");
  add_search_options(*cmd, *args, true);
  cmd->add_option("queries", args->queries, "Query input (default: stdin)");
  add_json_flag(*cmd, args->style);
  add_base_flags(*cmd, args->style, false);
  add_keys_option(*cmd, args->keys);
  cmd->add_flag("--sort", args->sort, "Sort the output (holds a chunk's hits in memory)");
  cmd->add_option(
      "--memory", args->memory,
      "Memory bound for the queries held at once, e.g. 64M or 2G (default: a quarter of physical memory)");
  cmd->add_flag("--stats", args->stats, "Print blocks decoded and hits per table on stderr");
  cmd->add_flag("--text", args->text, "Queries are documents instead of fingerprints");
  add_text_options(*cmd, args->text_options, true);
  cmd->callback([args] {
    args->text_options.threads = args->threads;
    run_join(*args);
  });
}

}  // namespace simdex::cli
