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

// Cuts every table into block ranges that start where a group starts (the previous block's last
// entry has another prefix than the block's first), about 8 per thread per table so that uneven
// ranges still balance; no group is split, so no block is decoded twice.
std::vector<Task> plan(const IndexFile& file, unsigned threads) {
  std::vector<Task> tasks;
  for (const TableView& t : file.tables()) {
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
    component_.clear();
  }

  // Whether entries i and j of the group were in different components of its pairs within k so
  // far (now one): a union-find over the group's positions, made at its first pair.
  bool joins_components(std::size_t i, std::size_t j) {
    if (component_.empty()) {
      component_.resize(entries_.size());
      for (std::size_t x = 0; x < component_.size(); ++x) component_[x] = x;
    }
    auto root = [&](std::size_t x) {
      while (component_[x] != x) x = component_[x] = component_[component_[x]];  // path halving
      return x;
    };
    const std::size_t a = root(i), b = root(j);
    if (a == b) return false;
    component_[std::max(a, b)] = std::min(a, b);
    return true;
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

  void report(const TableView& t, std::size_t i, std::size_t j) {
    const uint64_t diff = t.permutation.invert(entries_[i] ^ entries_[j]);
    // Every pair within k joins the group's components, also one an earlier table reports (its
    // prefix is shared there too): that table connects it, so a later pair it makes redundant
    // here is connected in the end (by induction over the tables).
    if (scan_.components_only && !joins_components(i, j)) return;
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
  // With components_only: the group's union-find (joins_components); empty until its first pair.
  std::vector<std::size_t> component_;
  unsigned worker_ = 0;
  uint64_t found_ = 0;
};

}  // namespace

std::vector<BatchTableStats> scan_pairs(const IndexFile& file, const PairScan& scan) {
  const auto masks = prefix_masks(file);
  const auto tasks = plan(file, scan.threads);
  const std::size_t T = file.tables().size();
  std::vector<std::atomic<uint64_t>> decoded(T), found(T);
  uint64_t total = 0;
  for (const auto& t : file.tables()) total += t.block_count();
  WorkCounter work(scan.work_limit);
  std::vector<Scanner> scanners;
  for (unsigned w = 0; w < scan.threads; ++w) {
    scanners.emplace_back(file, scan, masks, work);
    scanners.back().set_worker(w);
  }
  run_tasks(scan.threads, tasks.size(),
            [&](std::size_t i, unsigned worker, std::atomic<uint64_t>& done) {
              const Task& task = tasks[i];
              found[task.table] += scanners[worker].run(task);
              decoded[task.table] += task.end - task.first;
              done += task.end - task.first;
            },
            {scan.progress, total});
  std::vector<BatchTableStats> stats(T);
  for (std::size_t t = 0; t < T; ++t)
    stats[t] = {file.tables()[t].block_count(), decoded[t].load(), found[t].load()};
  return stats;
}

}  // namespace simdex::reader
