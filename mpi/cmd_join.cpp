// simdex-mpi join: queries against a set whose members are spread over the ranks. Rank 0 reads the
// queries and broadcasts them chunk by chunk; every rank joins a chunk against its members; the hits
// go to the rank their (query, fingerprint) hashes to, which unites the ids of a fingerprint held by
// members of several ranks; then they are printed, each hit once.
#include <algorithm>
#include <exception>
#include <memory>
#include <optional>
#include <tuple>

#include "cli/batch_output.h"
#include "cli/lines.h"
#include "cli/pair_input.h"
#include "cli/progress.h"
#include "cli/text_options.h"
#include "mpi/commands.h"
#include "mpi/records.h"
#include "mpi/result_sink.h"
#include "simdex/batch.h"
#include "simdex/builder.h"

namespace simdex::mpi {

namespace {
struct JoinArgs : SpreadArgs {
  std::string queries;
  std::string memory;
  cli::OutputStyle style;
  bool sort = false, text = false;
  cli::TextOptions text_options;
};

constexpr uint64_t bytes_per_query = 64;  // as `simdex join`: a chunk of queries fits in --memory

// The broadcast of a chunk: [state, fingerprint, id, ...].
enum Chunk : uint64_t { more = 0, last = 1, abandoned = 2 };

void run_join(const JoinArgs& a) {
  const World world;
  if (a.index == "-" || a.queries == "-")
    throw Error(errc::usage, "simdex-mpi reads the set and the queries from files, not from stdin");
  MemberPlan plan;
  std::optional<Index> own;
  world.step([&] {
    plan = plan_members(a.index, world.size(), parse_assign(a.assign));
    const auto mine = plan.owned_by(world.rank());
    if (mine.empty()) return;
    own.emplace(open_members(a.index, plan, mine));
    own->search_distance(a.k);
  });
  std::vector<std::string> inputs = files_read(a.index);
  inputs.push_back(a.queries);
  ResultSink sink(world, a.output, a.output_dir, a.style.json ? "jsonl" : "tsv", inputs);
  BatchOptions options;
  options.k = a.k;
  options.threads = a.threads ? a.threads : world.default_threads();
  options.with_ids = true;
  if (a.force) options.work_limit = UINT64_MAX;

  std::vector<uint64_t> chunk{Chunk::more};
  std::vector<Query> queries;
  auto round = [&] {  // collective: one chunk of queries, from broadcast to output
    world.broadcast(chunk, 0);
    if (chunk[0] == Chunk::abandoned) return;
    queries.clear();
    for (std::size_t at = 1; at + 1 < chunk.size(); at += 2) queries.push_back({chunk[at], chunk[at + 1]});
    std::vector<std::vector<uint64_t>> out(static_cast<std::size_t>(world.size()));
    world.step([&] {
      if (own)
        join(*own, queries, options, [&](std::span<const JoinHit> hits) {
          for (const JoinHit& h : hits)
            append_record(out[static_cast<std::size_t>(home_rank(h.query, h.fingerprint, world.size()))],
                          h.query, h.fingerprint, h.distance, h.ids, {});
        });
    });
    const std::vector<uint64_t> mine = merge_records(world.exchange(out));
    sink.write(
        mine,
        [&](cli::Output& o, std::span<const uint64_t> words) {
          std::vector<JoinHit> hits;
          for_each_record(words, [&](const Record& r) {
            const Query& q = queries.at(r.key1);
            hits.push_back({r.key1, q.id, q.fingerprint, r.key2, r.distance, id_view(r.ids1)});
          });
          // --sort: the order of `simdex join --sort` (queries in input order, then distance, fingerprint)
          if (a.sort)
            std::sort(hits.begin(), hits.end(), [](const JoinHit& x, const JoinHit& y) {
              return std::tie(x.query, x.distance, x.fingerprint) <
                     std::tie(y.query, y.distance, y.fingerprint);
            });
          for (const JoinHit& h : hits) cli::print_hit(o, h, a.style, nullptr);
        },
        a.sort);
  };

  const uint64_t memory = a.memory.empty() ? default_memory_bytes() : cli::parse_size(a.memory, "--memory");
  const uint64_t per_chunk = std::max<uint64_t>(1024, memory / bytes_per_query);
  if (world.root()) {
    std::exception_ptr read_error;
    try {
      cli::Progress progress(false);
      cli::for_each_query(a.queries, a.text, a.text_options, a.index, progress,
                          [&](uint64_t fp, uint64_t id, std::optional<std::string_view>) {
                            chunk.insert(chunk.end(), {fp, id});
                            if (chunk.size() / 2 == per_chunk) {
                              round();
                              chunk.assign(1, Chunk::more);
                            }
                          });
      chunk[0] = Chunk::last;
    } catch (const JobFailed&) {
      throw;
    } catch (...) {
      read_error = std::current_exception();
      chunk.assign(1, Chunk::abandoned);
    }
    round();
    world.step([&] {
      if (read_error) std::rethrow_exception(read_error);
    });
  } else {
    do round();
    while (chunk[0] == Chunk::more);
    world.step([] {});
  }
  sink.publish();
}
}  // namespace

void add_join_command(CLI::App& app) {
  auto args = std::make_shared<JoinArgs>();
  auto* cmd = app.add_subcommand("join", "Join queries against a set spread over the ranks (simdex join)");
  cmd->footer(
      std::string(
          "QUERIES and the output are those of `simdex join` (see `simdex join --help`): one line per\n"
          "(query, stored fingerprint) within k bits, each once, with the union of the fingerprint's\n"
          "ids over all members. Rank 0 reads QUERIES and broadcasts them in chunks of --memory / 64\n"
          "bytes; every rank joins them against its members; each hit goes to one rank, which unites\n"
          "what several ranks found. Lines come in no fixed order (--sort: `simdex join --sort`'s\n"
          "order, a chunk's hits held on rank 0).\n\n") +
      kSpreadHelp + "\nExample: mpirun -np 4 simdex-mpi join docs.sdxs queries.tsv > hits.tsv");
  add_spread_options(*cmd, *args);
  cmd->add_option("queries", args->queries, "Query file (on rank 0)")->required();
  cli::add_json_flag(*cmd, args->style);
  cli::add_base_flags(*cmd, args->style, false);
  cmd->add_flag("--sort", args->sort,
                "Sort the output as `simdex join --sort` (a chunk's hits held on rank 0)");
  cmd->add_option("--memory", args->memory,
                  "Memory bound for the queries held at once (default: a quarter of "
                  "physical memory)");
  cmd->add_flag("--text", args->text, "Queries are documents instead of fingerprints");
  cli::add_text_options(*cmd, args->text_options, true);
  // No --keys here (ranks print ids): a directory of documents needs --key-map alone.
  args->text_options.keys_flag.clear();
  cmd->get_option("--key-map")
      ->description(
          "Write the key map (ID<TAB>KEY lines, spec/KEYS.md) of the queries' string keys and paths here "
          "(default: none; a directory of documents needs one); an input without string keys gives a map "
          "of no entry");
  cmd->callback([args] { run_join(*args); });
}

}  // namespace simdex::mpi
