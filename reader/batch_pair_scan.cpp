#include "reader/batch_pair_scan.h"

#include <algorithm>
#include <bit>

#include "reader/batch_work.h"

namespace simdex::reader {

namespace {

struct Task {
  uint32_t table;
  uint64_t first, end;  // blocks [first, end)
};

inline bool same_prefix(uint64_t x, uint64_t y, unsigned p) { return p == 0 || ((x ^ y) >> (64 - p)) == 0; }
uint64_t first_entry(const IndexFile& file, const TableView& t, uint64_t j) {
  return format::load_le64(file.block(t, j) + 8);
}

// Cuts every table a search within k reads into block ranges that start where a group starts (the
// previous block's last entry has another prefix than the block's first), about 8 per thread per
// table so that uneven ranges still balance; no group is split, so no block is decoded twice.
std::vector<Task> plan(const IndexFile& file, unsigned k, unsigned threads) {
  std::vector<Task> tasks;
  for (const uint32_t i : file.tables_within(k)) {
    const TableView& t = file.tables()[i];
    const uint64_t n = t.block_count();
    const uint64_t step = std::max<uint64_t>(8, n / (8 * uint64_t{threads}) + 1);
    for (uint64_t b = 0; b < n;) {
      uint64_t e = std::min(n, b + step);
      while (e < n && same_prefix(t.key(e - 1), first_entry(file, t, e), t.prefix_bits())) ++e;
      tasks.push_back({t.index, b, e});
      b = e;
    }
  }
  return tasks;
}

// A component of a group's entries (the component scan of clusters): the fingerprints and group
// positions of its members; and, per live component, what the scan reads first (its first member,
// often the only one, in a flat array: no pointer followed for a component of one).
struct Component {
  std::vector<uint64_t> values;
  std::vector<std::size_t> members;
};
struct LiveComponent {
  uint64_t first;            // values[0]
  std::size_t first_member;  // members[0]
  std::size_t id;            // in the scanner's components
  std::size_t size;
};
struct Hit {
  std::size_t live;    // position in the live components
  std::size_t member;  // the member within k of the entry
};

// Each live component with a member within k of x, in hits (the first such member); returns the
// comparisons made. Compiled for POPCNT where the CPU has it (as close_pairs).
SIMDEX_INLINE uint64_t find_close_components_body(uint64_t x, const std::vector<LiveComponent>& live,
                                                  const std::vector<Component>& components, unsigned k,
                                                  std::vector<Hit>& hits) {
  uint64_t comparisons = live.size();
  for (std::size_t c = 0; c < live.size(); ++c) {
    const LiveComponent& l = live[c];
    if (static_cast<unsigned>(std::popcount(x ^ l.first)) <= k) {
      hits.push_back({c, l.first_member});
    } else if (l.size > 1) {
      const Component& component = components[l.id];
      const std::size_t rest = l.size - 1;
      const std::size_t at = first_close_body(x, component.values.data() + 1, rest, k);
      comparisons += at < rest ? at + 1 : rest;
      if (at < rest) hits.push_back({c, component.members[at + 1]});
    }
  }
  return comparisons;
}
#ifdef SIMDEX_BATCH_X86
SIMDEX_POPCNT uint64_t find_close_components_popcnt(uint64_t x, const std::vector<LiveComponent>& live,
                                                    const std::vector<Component>& components, unsigned k,
                                                    std::vector<Hit>& hits) {
  return find_close_components_body(x, live, components, k, hits);
}
#endif
uint64_t find_close_components(uint64_t x, const std::vector<LiveComponent>& live,
                               const std::vector<Component>& components, unsigned k, std::vector<Hit>& hits) {
#ifdef SIMDEX_BATCH_X86
  if (cpu_has_popcnt()) return find_close_components_popcnt(x, live, components, k, hits);
#endif
  return find_close_components_body(x, live, components, k, hits);
}

class Scanner {
 public:
  Scanner(const IndexFile& file, const PairScan& scan, const std::vector<uint64_t>& masks, WorkCounter& work)
      : file_(file), scan_(scan), masks_(masks), work_(work) {}

  // Returns the number of pairs reported.
  uint64_t run(const Task& task) {
    const TableView& t = file_.tables()[task.table];
    const unsigned p = t.prefix_bits();
    // Table 0's ranks are used (ids, union-find): each is checked below n before it is used, and
    // each block's count against the next block's rank, so the ranks are exactly 0..n-1.
    const bool ranked = task.table == 0 && (scan_.ranks || scan_.on_table0_entry);
    found_ = 0;
    clear();
    for (uint64_t j = task.first; j < task.end; ++j) {
      if ((j & 255) == 0 && format::round_stopped()) return found_;  // the round's results are dropped
      const auto r = file_.decode(t, j, [&](uint64_t e, uint32_t i) {
        if (!entries_.empty() && !same_prefix(entries_.front(), e, p)) {
          compare(t);
          clear();
        }
        entries_.push_back(e);
        if (ranked) {
          const uint64_t rank = file_.rank_at(t, j, i);
          ranks_.push_back(rank);
          if (scan_.on_table0_entry) scan_.on_table0_entry(worker_, t.permutation.invert(e), rank);
        }
        return true;
      });
      if (ranked) check_rank_chain(t, j, r.decoded);
    }
    compare(t);
    return found_;
  }
  void set_worker(unsigned w) { worker_ = w; }

 private:
  // Every two entries of the group within k; the hot loop of the whole job.
  void compare(const TableView& t) {
    const std::size_t n = entries_.size();
    if (scan_.k == 0) return;  // a table's entries are distinct: none is 0 bits from another
    if (scan_.components_only) return compare_components(t);
    work_.add_group(n);
    if (n < kStripeRows * 64) {  // at most 1.3e8 comparisons, a few tens of milliseconds
      close_pairs(entries_.data(), n, scan_.k, [&](std::size_t i, std::size_t j) { report(t, i, j); });
      return;
    }
    // A large group (a dense prefix, hours of work when forced past the work limit): the same
    // pairs row by row, in stripes, so that a stopped round ends within one stripe.
    for (std::size_t i = 0; i + 1 < n; ++i) {
      if (i % kStripeRows == 0 && format::round_stopped()) return;
      close_to(entries_[i], entries_.data() + i + 1, n - i - 1, scan_.k,
               [&](std::size_t y) { report(t, i, i + 1 + y); });
    }
  }
  static constexpr std::size_t kStripeRows = 256;

  // components_only: each entry j against each component of the entries before it (their pairs
  // within k), member by member until one is within k: that pair joins j to the component. A group
  // of near-identical entries (a template filled in, boilerplate) costs about one comparison an
  // entry, where every two entries were compared (hours for a million); a group without pairs costs
  // each pair once, as compare(). The components are local to the group: a pair an earlier table
  // reports (its prefix is shared there too) still joins them here, as that table connects it (by
  // induction over the tables).
  void compare_components(const TableView& t) {
    const std::size_t n = entries_.size();
    if (n < 3) {  // most groups: no component to keep
      if (n == 2 && static_cast<unsigned>(std::popcount(entries_[0] ^ entries_[1])) <= scan_.k)
        report(t, 0, 1);
      return;
    }
    live_.clear();
    spare_.clear();
    used_ = 0;
    uint64_t comparisons = 0;
    for (std::size_t j = 0; j < n; ++j) {
      if (j % kStripeRows == kStripeRows - 1) {
        if (format::round_stopped()) return;
        work_.add(comparisons);
        comparisons = 0;
      }
      hits_.clear();
      comparisons += find_close_components(entries_[j], live_, components_, scan_.k, hits_);
      join_components(t, j);
    }
    if (n >= WorkCounter::kSmall) work_.add(comparisons);  // small groups: not counted (add_group)
  }

  // Entry j into the components hits_ names (live_ positions, ascending, with the member within k of
  // j), the largest taking the others; a component of its own without hits.
  void join_components(const TableView& t, std::size_t j) {
    if (hits_.empty()) {
      std::size_t id;
      if (!spare_.empty()) {
        id = spare_.back();
        spare_.pop_back();
      } else {
        id = used_++;
        if (id == components_.size()) components_.emplace_back();
      }
      components_[id].values.assign(1, entries_[j]);
      components_[id].members.assign(1, j);
      live_.push_back({entries_[j], j, id, 1});
      return;
    }
    std::size_t into = hits_[0].live;  // the largest component named, by live_ position
    for (const Hit& h : hits_)
      if (live_[h.live].size > live_[into].size) into = h.live;
    Component& to = components_[live_[into].id];
    for (std::size_t h = hits_.size(); h-- > 0;) {
      report(t, hits_[h].member, j);
      const std::size_t at = hits_[h].live;
      if (at == into) continue;
      Component& from = components_[live_[at].id];
      to.values.insert(to.values.end(), from.values.begin(), from.values.end());
      to.members.insert(to.members.end(), from.members.begin(), from.members.end());
      // removed from live_ by a swap with its last: hits_ are handled from the last, so every live_
      // position above this one that a hit names is handled already (the target's is followed)
      spare_.push_back(live_[at].id);
      if (into == live_.size() - 1) into = at;
      live_[at] = live_.back();
      live_.pop_back();
    }
    to.values.push_back(entries_[j]);
    to.members.push_back(j);
    live_[into].size = to.values.size();
  }

  // Block j's rank plus its entries is where the next block starts (n after the last block).
  void check_rank_chain(const TableView& t, uint64_t j, uint64_t entries) const {
    const uint64_t next = j + 1 < t.block_count() ? t.rank(j + 1) : file_.header().fingerprint_count;
    if ((j == 0 && t.rank(0) != 0) || t.rank(j) + entries != next)
      throw Error(errc::block_ranks, file_.where(t, j) + ": BLOCK_RANKS says " + std::to_string(t.rank(j)) +
                                         ", the block holds " + std::to_string(entries) +
                                         " entries, the next rank is " + std::to_string(next));
  }

  void clear() {
    entries_.clear();
    ranks_.clear();
    looked_up_.clear();
  }

  // The table-0 rank of the group's entry i (fingerprint f) in a table after the first: looked up
  // once per entry and group, not once per pair. A group of near-identical documents (a template
  // filled in) has most of its size^2 / 2 pairs within k: a lookup per pair (a block decoded each)
  // was 75% of a `dedup` of 40,000 of them.
  uint64_t rank_of_entry(std::size_t i, uint64_t f) {
    if (looked_up_.empty()) looked_up_.assign(entries_.size(), kNotLookedUp);
    if (looked_up_[i] == kNotLookedUp) looked_up_[i] = rank_in_table0(file_, f);
    return looked_up_[i];
  }
  static constexpr uint64_t kNotLookedUp = UINT64_MAX;  // ranks are below n <= UINT64_MAX

  // The group's entries i and j, within k: reported unless an earlier table does.
  void report(const TableView& t, std::size_t i, std::size_t j) {
    const uint64_t diff = t.permutation.invert(entries_[i] ^ entries_[j]);
    if (!first_table_for(masks_, t.index, diff)) return;
    uint64_t a = t.permutation.invert(entries_[i]), b = t.permutation.invert(entries_[j]);
    uint64_t ra = UINT64_MAX, rb = UINT64_MAX;
    if (scan_.ranks) {
      ra = t.index == 0 ? ranks_[i] : rank_of_entry(i, a);
      rb = t.index == 0 ? ranks_[j] : rank_of_entry(j, b);
    }
    if (a > b) {
      std::swap(a, b);
      std::swap(ra, rb);
    }
    ++found_;
    scan_.on_pair(worker_, FoundPair{a, b, static_cast<unsigned>(std::popcount(diff)), ra, rb});
  }

  const IndexFile& file_;
  const PairScan& scan_;
  const std::vector<uint64_t>& masks_;
  WorkCounter& work_;
  // The current group: permuted entries and, in table 0 when ranks are used, their ranks. Reused: no
  // allocation once they have grown to the largest group.
  std::vector<uint64_t> entries_, ranks_;
  // In tables after the first, with ranks: the ranks of the group's entries looked up so far
  // (rank_of_entry); empty until the group's first pair.
  std::vector<uint64_t> looked_up_;
  // With components_only, the group's components so far (compare_components): the fingerprints
  // and group positions of each; the ids of those live, and of those merged into others (spare,
  // reused first); used_ ids given out in this group. Kept with their capacity from group to group.
  std::vector<Component> components_;
  std::vector<LiveComponent> live_;
  std::vector<std::size_t> spare_;
  std::size_t used_ = 0;
  std::vector<Hit> hits_;
  unsigned worker_ = 0;
  uint64_t found_ = 0;
};

}  // namespace

std::vector<BatchTableStats> scan_pairs(const IndexFile& file, const PairScan& scan) {
  const auto masks = prefix_masks(file);
  const auto tasks = plan(file, scan.k, scan.threads);
  const std::size_t T = file.tables().size();
  std::vector<std::atomic<uint64_t>> decoded(T), found(T);
  uint64_t total = 0;
  for (const uint32_t t : file.tables_within(scan.k)) total += file.tables()[t].block_count();
  const Work estimate = scan.k == 0 ? Work{} : pairs_work(file, scan.k);  // compare() has nothing to do
  check_work(scan.command, scan.components_only ? Work{} : estimate, scan.work_limit);
  WorkCounter work(scan.command, estimate, scan.work_limit);
  format::TaskProgress progress{{}, total};
  if (scan.progress)
    progress.report = [&](uint64_t done, uint64_t all) { scan.progress(scan.command, done, all); };
  std::vector<Scanner> scanners;
  for (unsigned w = 0; w < scan.threads; ++w) {
    scanners.emplace_back(file, scan, masks, work);
    scanners.back().set_worker(w);
  }
  run_tasks(
      scan.threads, tasks.size(),
      [&](std::size_t i, unsigned worker, std::atomic<uint64_t>& done) {
        const Task& task = tasks[i];
        found[task.table] += scanners[worker].run(task);
        decoded[task.table] += task.end - task.first;
        done += task.end - task.first;
      },
      progress);
  std::vector<BatchTableStats> stats(T);
  for (std::size_t t = 0; t < T; ++t)
    stats[t] = {file.tables()[t].block_count(), decoded[t].load(), found[t].load(), false};
  for (const uint32_t t : file.tables_within(scan.k)) stats[t].read = true;
  return stats;
}

}  // namespace simdex::reader
