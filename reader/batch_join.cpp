// simdex::join: a set of queries against an index, table by table. The queries are permuted by the
// table's permutation and sorted; then the sorted queries and the sorted table are merged: each group
// of queries sharing a prefix reads the entries with that prefix, and since the groups ascend, so do
// the blocks they read, and each block is decoded at most once per table and chunk (the last decoded
// block is kept for the next group). Threads take chunks of the sorted queries. A hit is reported by the
// first table whose prefix groups put the query and the fingerprint together (reader/batch_common.h), so each
// once.
#include <algorithm>
#include <array>
#include <bit>
#include <memory>
#include <utility>

#include "format/huge_pages.h"
#include "format/run_tasks.h"
#include "reader/batch_common.h"
#include "reader/batch_work.h"
#include "reader/index_impl.h"
#include "reader/probe.h"

namespace simdex {

namespace {

struct Permuted {
  uint64_t q;         // the query permuted by the table
  std::size_t index;  // into the query span
};
// The sorted queries of a table and the sort's scratch, 32 bytes a query in all: uninitialized and
// on huge pages (format::HugeBuffer), since zeroing them and faulting their 4 KiB pages in on the
// calling thread, before any worker starts, took 12% of a 2-thread join of 1M queries.
using Queries = format::HugeBuffer<Permuted>;

// The queries permuted by table t, ordered by the top `prefix_bits` bits of q (the merge needs the
// prefix groups ascending, not the queries within a group): an LSD radix sort on those bits alone,
// instead of a comparison sort of every query per table. Each pass runs on `threads` slices (a
// histogram per slice, then each slice scattered to its own places), as does the permuting: with
// many tables this work, once serial, would bound the join's speed-up.
// Digits of equal width, kDigitBits at most: paper-10's 25-26-bit prefixes take 3 passes of 8-9
// bits. Whole bytes took 4 passes, and 2 of 13 bits (8,192 places written at once) beat them by less:
// the sort's time fell 12% with 2 passes, 22% with 3 (1M queries; bench/RESULTS.md).
constexpr unsigned kDigitBits = 11;
void permute_and_sort(const reader::TableView& t, std::span<const Query> queries, Queries& v,
                      Queries& scratch, format::TaskPool& pool) {
  const std::size_t n = queries.size();
  const unsigned slices = format::parts_for(n, pool.threads());
  auto slice = [&](std::size_t s) { return format::part_range(n, s, slices); };
  v.resize(n);
  scratch.resize(n);
  pool.run(slices, [&](std::size_t s, unsigned, std::atomic<uint64_t>&) {
    for (auto [i, end] = slice(s); i < end; ++i) v[i] = {t.permutation.apply(queries[i].fingerprint), i};
  });
  const unsigned prefix_bits = std::min(t.prefix_bits(), 64u);
  std::vector<std::size_t> start;  // slice s's next place for digit d: start[s * digits + d]
  for (unsigned shift = 64 - prefix_bits, passes = (prefix_bits + kDigitBits - 1) / kDigitBits; passes > 0;
       --passes) {
    const unsigned width = (64 - shift + passes - 1) / passes;  // the bits left, spread evenly
    const uint64_t mask = (uint64_t{1} << width) - 1;
    const std::size_t digits = std::size_t{1} << width;
    start.assign(digits * slices, 0);
    // (The loops read shift, mask and the arrays from locals: through the captured references,
    // each store to a count or a query would make the compiler load them again.)
    pool.run(slices, [&, shift, mask](std::size_t s, unsigned, std::atomic<uint64_t>&) {
      const Permuted* in = v.data();
      std::size_t* count = start.data() + s * digits;
      for (auto [i, end] = slice(s); i < end; ++i) ++count[(in[i].q >> shift) & mask];
    });
    std::size_t sum = 0;  // digit by digit, slice by slice: a stable order
    for (std::size_t d = 0; d < digits; ++d)
      for (unsigned s = 0; s < slices; ++s) sum += std::exchange(start[s * digits + d], sum);
    pool.run(slices, [&, shift, mask](std::size_t s, unsigned, std::atomic<uint64_t>&) {
      const Permuted* in = v.data();
      Permuted* out = scratch.data();
      std::size_t* next = start.data() + s * digits;
      for (auto [i, end] = slice(s); i < end; ++i) {
        const Permuted x = in[i];
        out[next[(x.q >> shift) & mask]++] = x;
      }
    });
    v.swap(scratch);
    shift += width;
  }
}

// The position after the last query sharing the prefix of qs[i] (the queries ascend by prefix).
std::size_t group_end(const Queries& qs, std::size_t i, unsigned prefix_bits) {
  const uint64_t hi = reader::prefix_range(qs[i].q, prefix_bits).hi;
  return static_cast<std::size_t>(std::partition_point(qs.begin() + static_cast<std::ptrdiff_t>(i), qs.end(),
                                                       [&](const Permuted& x) { return x.q <= hi; }) -
                                  qs.begin());
}

struct Chunk {
  std::size_t first, end;  // positions in the sorted queries, at group boundaries
};
constexpr std::size_t kChunksPerThread = 32;

// Chunks of about `step` queries, cut where the prefix changes: a chunk owns its queries and
// decodes every block they need, so neighbouring chunks may both decode the block between them
// (each hit is still found once, by the chunk owning its query). Dense queries (every prefix
// queried) thus still make many chunks. Several threads: 32 chunks a thread, so that the round's
// last chunks leave the others idle for little time (8 a thread: a join of 1M queries against
// 100M on 16 threads 8-14% slower, bench/RESULTS.md). One thread: chunks of 65,536 queries at
// least, a small batch in one chunk (each chunk starts its probe pipeline empty).
std::vector<Chunk> plan(const reader::TableView& t, const Queries& qs, unsigned threads) {
  std::vector<Chunk> chunks;
  const std::size_t n = qs.size();
  const std::size_t step =
      std::max<std::size_t>(threads == 1 ? 65536 : 256, n / (kChunksPerThread * std::size_t{threads}) + 1);
  const unsigned p = t.prefix_bits();
  for (std::size_t b = 0; b < n;) {
    std::size_t e = std::min(n, b + step);
    if (e < n) e = group_end(qs, e - 1, p);
    chunks.push_back({b, e});
    b = e;
  }
  return chunks;
}

// The blocks a chunk decoded: an ascending run from `first` to `last` (none when count is 0).
struct Decoded {
  uint64_t count = 0, first = 0, last = 0;
};

// Blocks decoded in all, each counted once: only neighbouring chunks can share a block (the last
// block of one is at most the first of the next), so the shared ones are where they meet.
uint64_t distinct_blocks(const std::vector<Decoded>& chunks) {
  uint64_t sum = 0;
  const Decoded* previous = nullptr;
  for (const Decoded& d : chunks) {
    if (d.count == 0) continue;
    sum += d.count - (previous && previous->last == d.first ? 1 : 0);
    previous = &d;
  }
  return sum;
}

// What a block scanned by one group alone keeps (reader::in_range's on_entry): its entries in the
// group's range (a sparse batch's are few, and follow one another in the block), the block index of
// the first in `first`.
auto keep(std::vector<uint64_t>& entries, uint32_t& first) {
  entries.clear();
  return [&entries, &first](uint64_t e, uint32_t i) {
    if (entries.empty()) first = i;
    entries.push_back(e);
  };
}

class Joiner {
 public:
  Joiner(const reader::IndexFile& file, std::span<const Query> queries, unsigned k, bool with_ids,
         const std::vector<uint64_t>& masks, reader::BatchSink<JoinHit>& sink)
      : file_(file), queries_(queries), k_(k), with_ids_(with_ids), masks_(masks), sink_(sink) {}

  Decoded run(const reader::TableView& t, const Queries& qs, Chunk chunk) {
    Decoded decoded;
    const unsigned p = t.prefix_bits();
    groups_.clear();
    for (std::size_t g = chunk.first; g < chunk.end;) {
      groups_.push_back({g, 0});
      const uint64_t hi = reader::prefix_range(qs[g].q, p).hi;
      while (++g < chunk.end && qs[g].q <= hi) {
      }
    }
    groups_.push_back({chunk.end, 0});
    cur_ = floor_ = UINT64_MAX;
    if (qs.size() < t.block_count())
      run_sparse(t, qs, chunk, decoded);
    else
      run_dense(t, qs, chunk, decoded);
    flush_pending();
    return decoded;
  }

 private:
  // Fewer queries than blocks: most groups read a block no other group reads, far from the last.
  // Each group finds its first block as a query finds its tables' (reader/probe.h: aim, read,
  // choose), the steps kLag groups apart, and is scanned kLag groups after its choice, its block
  // prefetched meanwhile: the directory and block misses overlap instead of stalling each group in
  // turn before its decode, a serial chain of loads. Groups are scanned two at a time where both
  // read their block alone (scan_two). (4,096 queries against 1M, paper-10: 25 -> 14 ms with
  // scan_alone; 11.8 -> 9.9 ms with scan_two; 11.3 -> 9.0 ms once the prefetches were really
  // made, bench/RESULTS.md.)
  void run_sparse(const reader::TableView& t, const Queries& qs, Chunk chunk, Decoded& decoded) {
    const std::size_t count = groups_.size() - 1;
    std::size_t next = 0;  // the next group to scan
    for (std::size_t i = 0; i < count + 3 * kLag; ++i) {
      if ((i & 255) == 255 && format::round_stopped()) return;  // a chunk of a stopped round
      if (i < count) reader::aim_permuted(t, qs[groups_[i].first].q, in_flight(i));
      if (i >= kLag && i - kLag < count)
        reader::read_candidates(t, in_flight(i - kLag), reader::WalkLines::next);
      if (i >= 2 * kLag && i - 2 * kLag < count) {
        const std::size_t g = i - 2 * kLag;
        reader::ProbeStart& start = in_flight(g);
        reader::choose(t, start);
        uint64_t& block = groups_[g].block = start.block;
        // Ascending, so that the blocks decoded ascend (a scan may start at any block before its range).
        if (g > 0) block = std::max(block, groups_[g - 1].block);
        // The chunk's first block exactly (the choice may be the block before it, wholly below the
        // range): neighbouring chunks then share at most the block where they meet (distinct_blocks).
        if (g == 0 && block < t.block_count() && t.key(block) < start.x) ++block;
      }
      if (i >= 3 * kLag && i - 3 * kLag >= next) next += scan_two(t, qs, chunk, next, decoded);
    }
  }

  // As many queries as blocks or more: neighbouring groups share blocks, which stay cached. Each
  // group's first block is searched from the last one's (first_block_not_below, among the
  // directory's candidates), the blocks kAhead groups ahead prefetched; the pipeline of run_sparse
  // cost 20% more here (1M queries against 10M, paper-10).
  void run_dense(const reader::TableView& t, const Queries& qs, Chunk chunk, Decoded& decoded) {
    const std::size_t count = groups_.size() - 1;
    for (std::size_t g = 0; g < count; ++g)
      groups_[g].block =
          t.first_block_not_below(reader::prefix_range(qs[groups_[g].first].q, t.prefix_bits()).lo,
                                  g == 0 ? 0 : groups_[g - 1].block);
    constexpr std::size_t kAhead = 8;
    for (std::size_t g = 0; g < std::min(kAhead, count); ++g) reader::prefetch_block(t, groups_[g].block);
    for (std::size_t g = 0; g < count; ++g) {
      if ((g & 255) == 255 && format::round_stopped()) return;
      if (g + kAhead < count) reader::prefetch_block(t, groups_[g + kAhead].block);
      scan(t, qs, chunk, g, decoded);
    }
  }

  // Groups gi and gi + 1 when each reads its first block alone, as most groups of a sparse batch
  // do: the two blocks are decoded in turn (IndexFile::decode_two), so that their serial chains of
  // loads overlap. Returns the groups scanned: 1 when the pair does not qualify (gi is scanned alone).
  std::size_t scan_two(const reader::TableView& t, const Queries& qs, Chunk chunk, std::size_t gi,
                       Decoded& decoded) {
    const std::size_t count = groups_.size() - 1;
    const uint64_t a = start_block(gi);
    const uint64_t b = gi + 1 < count ? groups_[gi + 1].block : 0;
    if (gi + 1 >= count || a == cur_ || a >= b || b >= t.block_count() ||
        (gi + 2 < count && groups_[gi + 2].block <= b)) {
      scan(t, qs, chunk, gi, decoded);
      return 1;
    }
    const unsigned p = t.prefix_bits();
    const std::size_t ga = groups_[gi].first, gb = groups_[gi + 1].first, ge = groups_[gi + 2].first;
    uint32_t first_a = 0, first_b = 0;
    auto in_a = reader::in_range(reader::prefix_range(qs[ga].q, p), keep(buf_, first_a));
    auto in_b = reader::in_range(reader::prefix_range(qs[gb].q, p), keep(buf2_, first_b));
    const auto [ra, rb] = file_.decode_two(t, a, in_a, t, b, in_b);
    mark_decoded(decoded, a);
    cur_ = UINT64_MAX;
    meet(t, qs, ga, gb, buf_.data(), buf_.size(), a, first_a);
    if (!in_a.ends_in(ra)) {  // gi reads on past block a (so b's start may change): b's decode is dropped
      scan_from(t, qs, chunk, gi, a + 1, decoded);
      scan(t, qs, chunk, gi + 1, decoded);
      return 2;
    }
    mark_decoded(decoded, b);
    meet(t, qs, gb, ge, buf2_.data(), buf2_.size(), b, first_b);
    if (!in_b.ends_in(rb)) scan_from(t, qs, chunk, gi + 1, b + 1, decoded);
    return 2;
  }

  // Every block before the last one decoded ends below group gi's range (the earlier groups' scans
  // went past them): its scan starts there when the directory's choice is the block before.
  uint64_t start_block(std::size_t gi) const {
    return floor_ == UINT64_MAX ? groups_[gi].block : std::max(groups_[gi].block, floor_);
  }
  void mark_decoded(Decoded& decoded, uint64_t j) {
    if (decoded.count++ == 0) decoded.first = j;
    decoded.last = floor_ = j;
  }

  // Group gi's queries against the entries of their prefix range, from the group's first block on.
  void scan(const reader::TableView& t, const Queries& qs, Chunk chunk, std::size_t gi, Decoded& decoded) {
    scan_from(t, qs, chunk, gi, start_block(gi), decoded);
  }
  void scan_from(const reader::TableView& t, const Queries& qs, Chunk chunk, std::size_t gi, uint64_t start,
                 Decoded& decoded) {
    const unsigned p = t.prefix_bits();
    const std::size_t g = groups_[gi].first, ge = groups_[gi + 1].first;
    const auto range = reader::prefix_range(qs[g].q, p);
    for (uint64_t j = start; j < t.block_count(); ++j) {
      // A stopped round (Ctrl-C) returns within a block: a dense prefix has many blocks, or blocks of
      // many entries that a group of many queries meets (1M fingerprints in 103 blocks, 20,000
      // queries: 0.1 s a block, and the table one chunk, which ran on for 10 s).
      if (j != start && format::round_stopped()) return;
      if (j != cur_) {
        mark_decoded(decoded, j);
        // Later groups read block j only when the next one starts at or before it (the starts
        // ascend). When none does, the group's queries meet the entries as they are decoded.
        if (gi + 2 == groups_.size() || groups_[gi + 1].block > j) {
          cur_ = UINT64_MAX;
          if (scan_alone(t, qs, g, ge, range, j)) break;
          continue;
        }
        // Entries above every group that can still read block j are never needed: decoding stops
        // there, so a sparse batch decodes about what single probes would.
        uint64_t limit = range.hi;
        for (std::size_t x = ge; x < chunk.end; ++x) {
          const auto later = reader::prefix_range(qs[x].q, p);
          if (later.lo > t.key(j)) break;
          limit = later.hi;
        }
        buf_.clear();
        const format::BlockResult r = file_.decode(t, j, [&](uint64_t e, uint32_t) {
          if (e > limit) return false;
          buf_.push_back(e);
          return true;
        });
        last_ = r.last;
        cur_ = j;
      }
      // The block's entries in [lo, hi], each query of the group against them.
      const auto first = std::lower_bound(buf_.begin(), buf_.end(), range.lo);
      const auto last = std::upper_bound(first, buf_.end(), range.hi);
      const bool past = last != buf_.end();
      const auto in_block = static_cast<std::size_t>(first - buf_.begin());
      meet(t, qs, g, ge, buf_.data() + in_block, static_cast<std::size_t>(last - first), j, in_block);
      // last_ is the block's key, or the entry above the limit that stopped the decode: >= hi means
      // the range ends in this block. (A decode stopped below hi was one for earlier groups that this
      // group's range lies wholly above: it needs the next block.)
      if (past || last_ >= range.hi) break;
    }
  }

  // Block j, read by the queries [g, ge) alone: decoded up to their range's end, keeping only the
  // entries in the range, which the queries then meet through close_to (POPCNT where the CPU has
  // it). True when the range ends in the block.
  bool scan_alone(const reader::TableView& t, const Queries& qs, std::size_t g, std::size_t ge,
                  reader::PrefixRange range, uint64_t j) {
    uint32_t first = 0;
    auto in = reader::in_range(range, keep(buf_, first));
    const format::BlockResult r = file_.decode(t, j, in);
    meet(t, qs, g, ge, buf_.data(), buf_.size(), j, first);
    return in.ends_in(r);
  }

  // The queries [g, ge) against the n entries from `entries` on, entries i0, i0 + 1, ... of block j.
  void meet(const reader::TableView& t, const Queries& qs, std::size_t g, std::size_t ge,
            const uint64_t* entries, std::size_t n, uint64_t j, uint64_t i0) {
    if (n == 0) return;  // most groups of a sparse batch: a random query's range is empty
    for (std::size_t x = g; x < ge; ++x) {
      if (((x - g) & 255) == 255 && format::round_stopped()) return;  // a group of many queries
      reader::close_to(qs[x].q, entries, n, k_,
                       [&](std::size_t y) { report(t, qs[x], entries[y], j, i0 + y); });
    }
  }

  // e is entry i of block j of table t.
  void report(const reader::TableView& t, const Permuted& q, uint64_t e, uint64_t j, uint64_t i) {
    // The check needs only the permuted pair (not the query record, a likely cache miss).
    const uint64_t diff = t.permutation.invert(e ^ q.q);
    if (!reader::first_table_for(masks_, t.index, diff)) return;
    const Query& query = queries_[q.index];
    const uint64_t f = t.permutation.invert(e);
    JoinHit hit{q.index, query.id, query.fingerprint, f, static_cast<unsigned>(std::popcount(diff)), {}};
    ++found_;
    if (with_ids_ && t.index != 0) {  // its rank is looked up in table 0 with others' (flush_pending)
      pending_.push_back(hit);
      if (pending_.size() == kPending) flush_pending();
      return;
    }
    if (with_ids_) hit.ids = file_.ids_at_rank(file_.rank_at(t, j, i));
    sink_.push(hit);
  }

  void flush_pending() {
    fingerprints_.clear();
    for (const JoinHit& hit : pending_) fingerprints_.push_back(hit.fingerprint);
    ranks_.resize(pending_.size());
    reader::ranks_in_table0(file_, fingerprints_, ranks_);
    for (std::size_t x = 0; x < pending_.size(); ++x) {
      pending_[x].ids = file_.ids_at_rank(ranks_[x]);
      sink_.push(pending_[x]);
    }
    pending_.clear();
  }

 public:
  uint64_t found_ = 0;

 private:
  const reader::IndexFile& file_;
  std::span<const Query> queries_;
  unsigned k_;
  bool with_ids_;
  const std::vector<uint64_t>& masks_;
  reader::BatchSink<JoinHit>& sink_;
  // Hits of tables after the first awaiting their rank in table 0, looked up kPending at a time
  // (their cache misses overlap: reader::ranks_in_table0), with the lookups' scratch.
  static constexpr std::size_t kPending = 256;
  std::vector<JoinHit> pending_;
  std::vector<uint64_t> fingerprints_, ranks_;
  std::vector<uint64_t> buf_;   // one decoded block, reused: block cur_, decoded up to an entry last_
  std::vector<uint64_t> buf2_;  // the second block of scan_two
  uint64_t cur_ = UINT64_MAX, last_ = 0;
  uint64_t floor_ = UINT64_MAX;  // the last block decoded, held in buf_ or not
  struct Group {
    std::size_t first;  // its first query in the sorted queries
    uint64_t block;     // where its scan starts
  };
  std::vector<Group> groups_;  // of the chunk being run, reused
  // run_sparse's groups between their aim and their choice (2 kLag + 1 at once at most).
  static constexpr std::size_t kLag = 4;
  std::array<reader::ProbeStart, 4 * kLag> in_flight_;
  reader::ProbeStart& in_flight(std::size_t g) { return in_flight_[g % in_flight_.size()]; }
};

}  // namespace

static BatchStats join_unchecked(const Index& index, std::span<const Query> queries,
                                 const BatchOptions& options,
                                 const std::function<void(std::span<const JoinHit>)>& on_hits) {
  const reader::IndexFile& file = index_impl(index).file;
  const unsigned k = reader::batch_k(file, options);
  const unsigned threads = reader::batch_threads(options);
  // The workers of every round below, started once: a table's six rounds take a few milliseconds
  // each at 100M on 16 threads (bench/RESULTS.md, "Builds and joins on 16 cores").
  format::TaskPool pool(threads);
  reader::check_work("join", reader::join_work(file, k, queries.size(), pool), options.work_limit);
  const auto masks = reader::prefix_masks(file);
  const auto& tables = file.tables();
  const std::vector<uint32_t>& searched = file.tables_within(k);
  std::mutex lock;
  std::atomic<uint64_t> count{0};
  std::vector<std::unique_ptr<reader::BatchSink<JoinHit>>> sinks;
  std::vector<Joiner> joiners;
  for (unsigned w = 0; w < threads; ++w) {
    sinks.push_back(std::make_unique<reader::BatchSink<JoinHit>>(on_hits, lock, count));
    joiners.emplace_back(file, queries, k, options.with_ids, masks, *sinks.back());
  }
  BatchStats stats;
  const uint64_t total = uint64_t{queries.size()} * tables.size();
  Queries qs, scratch;  // reused by every table
  for (const reader::TableView& t : tables) {
    BatchTableStats ts{t.block_count(), 0, 0};
    ts.read = std::binary_search(searched.begin(), searched.end(), t.index);
    if (ts.read && file.header().fingerprint_count > 0 && !queries.empty()) {
      permute_and_sort(t, queries, qs, scratch, pool);
      const auto chunks = plan(t, qs, threads);
      std::vector<Decoded> decoded(chunks.size());
      for (auto& j : joiners) j.found_ = 0;
      const uint64_t offset = uint64_t{queries.size()} * t.index;
      reader::TaskProgress progress;
      if (options.progress)
        progress.report = [&](uint64_t done, uint64_t) { options.progress("join", offset + done, total); };
      progress.total = queries.size();
      pool.run(
          chunks.size(),
          [&](std::size_t c, unsigned worker, std::atomic<uint64_t>& done) {
            decoded[c] = joiners[worker].run(t, qs, chunks[c]);
            done += chunks[c].end - chunks[c].first;
          },
          progress);
      ts.blocks_decoded = distinct_blocks(decoded);
      for (auto& j : joiners) ts.results += j.found_;
    }
    stats.tables.push_back(ts);
  }
  for (auto& s : sinks) s->flush();
  stats.results = count.load();
  return stats;
}

BatchStats join(const Index& index, std::span<const Query> queries, const BatchOptions& options,
                const std::function<void(std::span<const JoinHit>)>& on_hits) {
  if (const auto& set = index_impl(index).composite) return set->join(queries, options, on_hits);
  return read_checked(index_impl(index), true,
                      [&] { return join_unchecked(index, queries, options, on_hits); });
}

}  // namespace simdex
