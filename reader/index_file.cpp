#include "reader/index_file.h"

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <array>

#include "format/block_directory.h"
#include "format/coverage.h"
#include "format/fingerprint_settings.h"
#include "format/header_region.h"
#include "reader/probe.h"

namespace simdex::reader {

uint64_t TableView::first_block_not_below(uint64_t x, uint64_t from, uint64_t to) const {
  if (directory) {  // the answer lies among x's candidates: only their keys are read
    const Candidates c = candidates(x);
    if (from > c.last) return std::min(from, block_count());  // the blocks from c.last on end at or above x
    from = std::max(from, c.first);
    to = std::min(to, c.last);
  }
  return search_keys(x, from, to);
}

uint64_t TableView::search_keys(uint64_t x, uint64_t from, uint64_t to) const {
  // The answer lies in [left, right].
  uint64_t right = std::min(to, block_count()), left = std::min(from, right);
  if (left > 0) {
    // Gallop from `from`: ascending searches (a sorted batch) find their block a few keys further,
    // in cache lines just read, instead of jumping around the keys from scratch.
    for (uint64_t step = 1; left < right && key(left) < x; step *= 2) {
      const uint64_t next = right - left > step ? left + step : right;
      if (next == right || key(next) >= x) {
        right = next;
        ++left;
        break;
      }
      left = next + 1;
    }
  }
  bool interpolate = true;
  while (right - left > 8) {
    uint64_t probe;
    const uint64_t lo_key = key(left), hi_key = key(right - 1);
    if (x <= lo_key) return left;
    if (x > hi_key) return right;
    if (interpolate && hi_key > lo_key) {
      __extension__ using u128 = unsigned __int128;  // exact (x - lo) * width, no overflow
      const u128 span = static_cast<u128>(x - lo_key) * (right - 1 - left);
      probe = left + static_cast<uint64_t>(span / (hi_key - lo_key));
      probe = std::clamp(probe, left, right - 1);
    } else {
      probe = left + (right - left) / 2;
    }
    interpolate = !interpolate;  // a bisection step between interpolations bounds the worst case
    if (key(probe) < x)
      left = probe + 1;
    else
      right = probe;
  }
  while (left < right && key(left) < x) ++left;
  return left;
}

TableView::Candidates TableView::candidates(uint64_t x) const {
  const uint64_t count = block_count();
  if (!directory) {
    const uint64_t j = first_block_not_below(x);
    return {j, j};
  }
  const uint64_t slot = x >> (64 - directory_bits);
  const uint32_t* copy = copied_directory();
  auto entry = [&](uint64_t s) -> uint64_t { return copy ? copy[s] : format::load_le32(directory + 4 * s); };
  // Clamped: a hostile entry keeps the choice within the table.
  const uint64_t next = slot + 1 < (uint64_t{1} << directory_bits) ? entry(slot + 1) : count;
  const uint64_t last = std::min(next, count), first = std::min(entry(slot), last);
  // x at the first value of its slot: the entry is the answer itself.
  const uint64_t offset = x << directory_bits >> directory_bits;  // x's place in its slot
  if (offset == 0 || first == last) return {first, first};
  // The slot's values taken as spread evenly from the middle of block `first` (on average where
  // the slot starts) to the middle of block `last`: x lies offset / 2^(64 - d) of the way. On
  // random values the guess is x's block or a neighbour, on the same page 97% of the time at 100M
  // fingerprints, where a walk from `first` crossed pages (bench/RESULTS.md, "Format 2.2").
  __extension__ using u128 = unsigned __int128;
  const unsigned shift = 64 - directory_bits;
  const u128 half = u128{1} << (shift - 1);
  const auto guess =
      first + static_cast<uint64_t>((static_cast<u128>(offset) * (last - first) + half) >> shift);
  return {first, last, guess};  // guess <= last
}

uint64_t TableView::choose_candidate(uint64_t x, Candidates c) const {
  if (c.first == c.last) return c.first;
  // The last candidate starting at or below x (or the first candidate): every block after it
  // starts above x, and every block before it ends below x. From the guess, walking a few blocks
  // by their first entries; farther (the slot's values far from even) the keys are searched.
  constexpr uint64_t kMaxWalk = 4;
  const uint64_t end = std::min(c.last, block_count() - 1);
  uint64_t j = std::min(c.guess, end);
  if (j > c.first && first_entry(j) > x) {  // back: j starts above x
    for (uint64_t steps = 0; j > c.first && first_entry(j) > x; ++steps, --j)
      if (steps == kMaxWalk) return search_keys(x, c.first, j);
    return j;
  }
  for (uint64_t steps = 0; j < end && first_entry(j + 1) <= x; ++steps, ++j)  // forward: j ends below x
    if (steps == kMaxWalk) return search_keys(x, j + 1, c.last);
  return j;
}

IndexFile IndexFile::parse(const uint8_t* data, std::size_t size) {
  format::HeaderRegion region = format::HeaderRegion::decode_from(data, size);
  IndexFile f;
  f.data_ = data;
  f.size_ = size;
  f.header_ = region.header;
  f.sections_ = std::move(region.sections);
  f.tagged_ = std::move(region.tagged);
  f.tables_.resize(region.tables.size());
  f.decode_tables_ = std::make_unique<LazySlots<format::DecodeTable>>(f.tables_.size());
  f.directory_copies_ = std::make_unique<LazySlots<uint32_t, uint32_t[]>>(f.tables_.size());
  f.tables_within_ =
      std::make_unique<LazySlots<std::vector<uint32_t>>>(std::size_t{f.header_.max_distance} + 1);
  for (uint32_t t = 0; t < f.tables_.size(); ++t) {
    TableView& view = f.tables_[t];
    view.index = t;
    view.descriptor = region.tables[t];
    view.permutation = format::Permutation(view.descriptor.source_bit);
    view.decode_slot = &f.decode_tables_->slots[t];
    view.directory_slot = &f.directory_copies_->slots[t];
    view.block_bytes = f.header_.block_bytes;
  }
  for (const format::SectionEntry& s : f.sections_) {
    const uint8_t* at = data + s.offset;
    switch (s.kind) {
      case format::SectionKind::blocks:
        f.tables_[s.table].blocks = at;
        break;
      case format::SectionKind::block_keys:
        f.tables_[s.table].keys = at;
        break;
      case format::SectionKind::block_ranks:
        f.tables_[s.table].ranks = at;
        break;
      case format::SectionKind::id_offsets:
        f.id_offsets_ = at;
        break;
      case format::SectionKind::ids:
        f.ids_ = at;
        break;
    }
  }
  // The tagged sections this reader reads at open (rule bad_tagged_section, spec §10).
  const auto settings_tag = static_cast<uint32_t>(format::Tag::fingerprint_settings);
  if (const auto bytes = f.tagged_section(settings_tag)) {
    format::check_tagged_checksum(*std::find_if(f.tagged_.begin(), f.tagged_.end(),
                                                [&](const auto& e) { return e.tag == settings_tag; }),
                                  *bytes);
    f.fingerprint_settings_ = format::decode_fingerprint_settings(*bytes);
  }
  // BLOCK_DIRECTORY: its head only (O(T)); the entries are hints until verify() checks them.
  if (const auto bytes = f.tagged_section(static_cast<uint32_t>(format::Tag::block_directory))) {
    std::vector<uint64_t> block_counts;
    for (const TableView& t : f.tables_) block_counts.push_back(t.block_count());
    const auto layout = format::BlockDirectoryLayout::decode(*bytes, block_counts);
    for (TableView& t : f.tables_) {
      if (layout.bits[t.index] == 0) continue;
      t.directory = bytes->data() + layout.entries_offset[t.index];
      t.directory_bits = layout.bits[t.index];
    }
  }
  return f;
}

std::optional<std::span<const uint8_t>> IndexFile::tagged_section(uint32_t tag) const {
  for (const format::TaggedSectionEntry& e : tagged_)
    if (e.tag == tag) return std::span<const uint8_t>(data_ + e.offset, e.bytes);  // in bounds: parse()
  return std::nullopt;
}

namespace {
// `fresh` in `slot` unless another thread put its own there first: the one in the slot.
template <typename T, typename Owned>
const T* install(std::atomic<const T*>& slot, std::unique_ptr<Owned> fresh) {
  const T* expected = nullptr;
  if (slot.compare_exchange_strong(expected, fresh.get(), std::memory_order_acq_rel)) return fresh.release();
  return expected;
}
}  // namespace

const std::vector<uint32_t>& IndexFile::tables_within(unsigned k) const {
  if (k >= tables_within_->count) search_distance(k);  // Error(usage): one slot per k <= max_distance
  std::atomic<const std::vector<uint32_t>*>& slot = tables_within_->slots[k];
  if (const auto* found = slot.load(std::memory_order_acquire)) return *found;
  return *install(slot,
                  std::make_unique<std::vector<uint32_t>>(format::tables_within(prefix_masks(*this), k)));
}

std::vector<uint64_t> prefix_masks(const IndexFile& file) {
  std::vector<uint64_t> masks;
  for (const TableView& t : file.tables())
    masks.push_back(format::prefix_mask(t.descriptor.source_bit, t.prefix_bits()));
  return masks;
}

const format::DecodeTable& TableView::build_decode_table() const {
  return *install(*decode_slot, std::make_unique<format::DecodeTable>(descriptor.code_length));
}

const uint32_t* TableView::copy_directory() const {
  const uint64_t slots = uint64_t{1} << directory_bits;
  // The mapping is MADV_RANDOM: without a hint each page would be a read of its own from disk.
  const auto page = static_cast<uintptr_t>(::sysconf(_SC_PAGESIZE));
  const uintptr_t from = reinterpret_cast<uintptr_t>(directory) / page * page;
  ::madvise(reinterpret_cast<void*>(from), reinterpret_cast<uintptr_t>(directory) + 4 * slots - from,
            MADV_WILLNEED);  // a hint: an error (a buffer not mapped from a file) changes nothing
  auto fresh = std::make_unique_for_overwrite<uint32_t[]>(slots);
  for (uint64_t s = 0; s < slots; ++s) fresh[s] = format::load_le32(directory + 4 * s);
  return install(*directory_slot, std::move(fresh));
}

std::string IndexFile::where(const TableView& t, uint64_t j) const {
  return "table " + std::to_string(t.index) + " block " + std::to_string(j) + " (offset " +
         std::to_string(block(t, j) - data_) + ")";
}

void IndexFile::throw_block_error(const TableView& t, uint64_t j, const format::BlockResult& r) const {
  throw Error(errc::bad_block, where(t, j) + ": " + format::block_status_text(r.status));
}

unsigned IndexFile::search_distance(int64_t k) const {
  const unsigned max = header_.max_distance;
  if (k < 0) return max;
  if (k > max)
    throw Error(errc::usage,
                "k = " + std::to_string(k) + " exceeds the index's k = " + std::to_string(max) +
                    " (its tables find nothing farther; " +
                    (k <= 32 ? "build the index with k = " + std::to_string(k) + " to search that far)"
                             : std::string("simdex's schemes go up to k = 32, a custom scheme up to 64)")));
  return static_cast<unsigned>(k);
}

void IndexFile::throw_rank_error(const TableView& t, uint64_t j, uint64_t i) const {
  throw Error(errc::block_ranks, where(t, j) + ": BLOCK_RANKS says " + std::to_string(t.rank(j)) +
                                     ", so entry " + std::to_string(i) + " would lie past the table's " +
                                     std::to_string(header_.fingerprint_count) + " entries");
}

IdList IndexFile::ids_at_rank(uint64_t rank) const {
  if (rank >= header_.fingerprint_count)
    throw Error(errc::bad_ids, "rank " + std::to_string(rank) + " out of range");
  if (header_.id_layout == format::IdLayout::single) return IdList(ids_ + 8 * rank, 1);
  const uint64_t lo = format::load_le64(id_offsets_ + 8 * rank),
                 hi = format::load_le64(id_offsets_ + 8 * rank + 8);
  if (lo >= hi || hi > header_.id_count)
    throw Error(errc::bad_ids, "ID_OFFSETS[" + std::to_string(rank) + "..+1] = " + std::to_string(lo) + ", " +
                                   std::to_string(hi) + ": not an ascending range within IDS");
  return IdList(ids_ + 8 * lo, hi - lo);
}

uint64_t IndexFile::rank_of(uint64_t fingerprint) const {
  uint64_t rank;
  ranks_of({&fingerprint, 1}, {&rank, 1});
  return rank;
}

void IndexFile::ranks_of(std::span<const uint64_t> fingerprints, std::span<uint64_t> ranks) const {
  const TableView& t = tables_[0];
  // A window of lookups takes each step of a probe's start (reader/probe.h) before the next, so
  // that their directory and block misses overlap.
  constexpr std::size_t kWindow = 16;
  std::array<ProbeStart, kWindow> starts;
  for (std::size_t base = 0; base < fingerprints.size(); base += kWindow) {
    const std::size_t n = std::min(kWindow, fingerprints.size() - base);
    for (std::size_t i = 0; i < n; ++i) {
      const uint64_t x = t.permutation.apply(fingerprints[base + i]);
      aim_at(t, x, x, starts[i]);
    }
    for (std::size_t i = 0; i < n; ++i) read_candidates(t, starts[i]);
    for (std::size_t i = 0; i < n; ++i) choose(t, starts[i]);
    for (std::size_t i = 0; i < n; ++i) {
      const uint64_t x = starts[i].q, j = starts[i].block;
      uint64_t& rank = ranks[base + i] = UINT64_MAX;
      if (j >= t.block_count()) continue;
      // A stored x lies in block j: the scan start of a stored value is its own block.
      decode(t, j, [&](uint64_t e, uint32_t e_index) {
        if (e == x) rank = rank_at(t, j, e_index);
        return e < x;
      });
    }
  }
}

uint64_t rank_in_table0(const IndexFile& file, uint64_t fingerprint) {
  uint64_t rank;
  ranks_in_table0(file, {&fingerprint, 1}, {&rank, 1});
  return rank;
}

void ranks_in_table0(const IndexFile& file, std::span<const uint64_t> fingerprints,
                     std::span<uint64_t> ranks) {
  file.ranks_of(fingerprints, ranks);
  for (std::size_t i = 0; i < ranks.size(); ++i)
    if (ranks[i] == UINT64_MAX)
      throw Error(errc::table_mismatch,
                  "fingerprint " + std::to_string(fingerprints[i]) + " is in a table but not in table 0");
}

}  // namespace simdex::reader
