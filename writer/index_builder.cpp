#include <algorithm>

#include "format/layout.h"
#include "format/permutation.h"
#include "format/physical_memory.h"
#include "format/run_tasks.h"
#include "format/thread_count.h"
#include "simdex/builder.h"
#include "simdex/error.h"
#include "writer/atomic_file.h"
#include "writer/collect_pairs.h"
#include "writer/external_sorter.h"
#include "writer/index_writer.h"
#include "writer/u64_store.h"

namespace simdex {

BuildOptions::OutputWrites output_writes_named(std::string_view name) {
  using Writes = BuildOptions::OutputWrites;
  if (name == "auto") return Writes::automatic;
  if (name == "on") return Writes::direct;
  if (name == "off") return Writes::cached;
  throw Error(errc::usage, "direct_io must be 'auto', 'on' or 'off', not '" + std::string(name) + "'");
}

uint64_t default_memory_bytes() {
  return std::max<uint64_t>(format::physical_memory_bytes() / 4, uint64_t{64} << 20);
}

namespace {
// What the sort buffers and in-memory stores may take of the bound. The rest is left for what a
// build holds besides them (the program, 1 MiB I/O buffers, the block index of the table being
// written, the tables' block directories: at most 1 MiB a table), so that the peak RSS of the
// whole process stays within the bound.
uint64_t sort_budget(uint64_t bound) { return bound - std::min<uint64_t>(bound / 8, uint64_t{64} << 20); }
}  // namespace

struct IndexBuilder::State {
  State(const BuildOptions& o)
      : memory(sort_budget(o.memory_bytes ? o.memory_bytes : default_memory_bytes())),
        threads(format::cpu_bound_threads(o.threads)),
        scratch(o.temp_dir),
        pairs(scratch, memory, threads) {}
  uint64_t memory;  // the sort budget of the bound
  unsigned threads;
  writer::ScratchSpace scratch;
  writer::ExternalSorter<writer::SortPairs> pairs;  // (fingerprint, id)
  bool written = false;                             // write() was called: the pairs are used up
};

IndexBuilder::IndexBuilder(BuildOptions options)
    : options_(std::move(options)), state_(std::make_unique<State>(options_)) {
  // k and the block size checked now, not at write() after every pair was added (the scheme k
  // names is made then).
  if (!options_.scheme) (void)Scheme::automatic(0, options_.k);
  if (const std::string why = format::check_block_bytes(options_.block_bytes); !why.empty())
    throw Error(errc::usage, why);
}
IndexBuilder::~IndexBuilder() = default;
IndexBuilder::IndexBuilder(IndexBuilder&&) noexcept = default;
IndexBuilder& IndexBuilder::operator=(IndexBuilder&&) noexcept = default;

void IndexBuilder::add(uint64_t fingerprint, uint64_t id) {
  if (!state_) throw Error(errc::usage, "this IndexBuilder was moved from");
  if (state_->written)
    throw Error(errc::usage, "this IndexBuilder has written its index already: add to a new IndexBuilder");
  state_->pairs.add({fingerprint, id});
  ++added_;
}

using writer::U64Store;

bool IndexBuilder::used() const { return !state_ || state_->written; }

BuildSummary IndexBuilder::write(const std::string& path) {
  if (!state_) throw Error(errc::usage, "this IndexBuilder was moved from");
  State& s = *state_;
  if (s.written)
    throw Error(errc::usage,
                "this IndexBuilder has written (or tried to write) its index already: write() uses "
                "up the pairs; add them to a new IndexBuilder");
  // What can fail without the pairs is checked before they are used up: a retry after these
  // errors has them all.
  writer::checked_target(path);
  writer::refuse_replacing_set(path);
  writer::require_target_directory(path);
  if (options_.scheme) writer::check_writable(*options_.scheme, options_);
  s.written = true;
  auto progress = [&](std::string_view stage, uint64_t done, uint64_t total) {
    if (options_.progress) options_.progress(stage, done, total);
  };
  progress("sort", 0, s.pairs.added());
  s.pairs.finish();
  progress("sort", s.pairs.added(), s.pairs.added());  // also where a caller may stop the build
  // Distinct fingerprints, id offsets and ids: in memory when they fit beside the pairs (24 bytes
  // a pair at most), else in temporary files.
  const uint64_t pair_count = s.pairs.added();
  const bool in_memory = !s.pairs.external() && 40 * pair_count <= s.memory;
  auto make_store = [&] { return in_memory ? U64Store() : U64Store(s.scratch); };
  U64Store fingerprints = make_store(), id_offsets = make_store(), ids = make_store();
  if (in_memory) {
    fingerprints.reserve(pair_count, s.threads);
    ids.reserve(pair_count, s.threads);
  }
  const uint64_t runs = s.pairs.run_count();
  if (s.pairs.external()) progress("merge", 0, runs);
  if (in_memory) {
    format::TaskPool pool(s.threads);
    writer::collect_sorted(s.pairs.sorted_in_memory(), fingerprints, id_offsets, ids, pool);
  } else {
    writer::collect([&](auto&& f) { s.pairs.for_each(f); }, &fingerprints, id_offsets, ids);
  }
  if (s.pairs.external()) progress("merge", runs, runs);  // each stage's last report comes
  s.pairs.clear();

  const uint64_t n = fingerprints.size();
  const Scheme scheme = options_.scheme ? *options_.scheme : Scheme::automatic(n, options_.k);
  writer::check_writable(scheme, options_);
  // The ids section is in the order of table 0's entries: when table 0 permutes (never for the
  // built-in schemes), sort (permuted fingerprint, id) again.
  const format::Permutation first(scheme.tables[0].source_bit);
  if (!first.is_identity()) {
    writer::ExternalSorter<writer::SortPairs> by_rank(s.scratch, s.memory, s.threads);
    by_rank.reserve(ids.size());
    {
      U64Store::Cursor f(fingerprints), offset(id_offsets), id(ids);
      const bool shared = id_offsets.size() > 0;  // else one id per fingerprint
      uint64_t begin = shared ? offset.next() : 0;
      for (uint64_t i = 0; i < n; ++i) {
        const uint64_t key = first.apply(f.next()), end = shared ? offset.next() : i + 1;
        for (; begin < end; ++begin) by_rank.add({key, id.next()});
      }
    }
    by_rank.finish();
    U64Store offsets2 = make_store(), ids2 = make_store();
    writer::collect([&](auto&& f) { by_rank.for_each(f); }, nullptr, offsets2, ids2);
    id_offsets = std::move(offsets2);
    ids = std::move(ids2);
  }

  const uint64_t held = fingerprints.memory_bytes() + id_offsets.memory_bytes() + ids.memory_bytes();
  const uint64_t table_memory = s.memory > held ? s.memory - held : 0;
  BuildSummary summary =
      writer::write_index(path, writer::IndexContents{fingerprints, id_offsets, ids}, scheme, options_,
                          s.scratch, std::max<uint64_t>(table_memory, s.memory / 4));
  summary.temp_files = s.scratch.files_created();
  summary.temp_peak_bytes = s.scratch.peak_bytes();
  return summary;
}

}  // namespace simdex
