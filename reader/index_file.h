// A validated view of an index file's bytes: header, tables and sections, checked by parse() against
// every rule that costs O(table count) (spec/FORMAT.md §10, the rules marked "open"; see
// format::HeaderRegion::decode_from).
// Holds pointers into the caller's bytes; owns nothing of the file.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "format/block.h"
#include "format/block_directory.h"
#include "format/endian.h"
#include "format/huffman.h"
#include "format/layout.h"
#include "format/permutation.h"
#include "format/tagged_sections.h"
#include "simdex/error.h"
#include "simdex/fingerprint.h"
#include "simdex/index.h"

namespace simdex::reader {

struct TableView {
  uint32_t index = 0;
  format::TableDescriptor descriptor;
  format::Permutation permutation;
  // The table's Huffman decode table (8 KiB), built on first use by whichever thread needs it first,
  // so that opening a file of 4096 tables does not cost 32 MiB; the slot lives in the IndexFile's
  // array (a stable address however the IndexFile moves).
  const format::DecodeTable& decode_table() const {
    const format::DecodeTable* built = decode_slot->load(std::memory_order_acquire);
    return built ? *built : build_decode_table();
  }
  const format::DecodeTable& build_decode_table() const;
  std::atomic<const format::DecodeTable*>* decode_slot = nullptr;
  const uint8_t* blocks = nullptr;  // block_count * block_bytes bytes
  uint32_t block_bytes = 0;
  const uint8_t* keys = nullptr;   // block_count little-endian u64
  const uint8_t* ranks = nullptr;  // block_count little-endian u64
  // The table's BLOCK_DIRECTORY entries (spec/FORMAT.md §5.3): 2^directory_bits little-endian u32,
  // or null (a 2.0 file, or d_t = 0): then the keys are searched.
  const uint8_t* directory = nullptr;
  unsigned directory_bits = 0;
  // A directory of at most 2^kMaxCopiedDirectoryBits entries (1 MiB: every directory simdex writes
  // since 2.2) is read from a copy in memory, made on the table's first probe, as decode_table():
  // a probe of a file whose pages are not cached then reads its block's page and no directory page.
  // A larger one (a 2.1 file of more than 2^18 blocks a table) is read where it lies.
  static constexpr unsigned kMaxCopiedDirectoryBits = format::kWriterMaxDirectoryBits;
  std::atomic<const uint32_t*>* directory_slot = nullptr;
  const uint32_t* directory_copy() const {
    const uint32_t* built = directory_slot->load(std::memory_order_acquire);
    return built ? built : copy_directory();
  }
  const uint32_t* copy_directory() const;
  // The copy (made now if need be) when the directory is one a reader copies, else null: its
  // entries are read where they lie.
  const uint32_t* copied_directory() const {
    return directory && directory_bits <= kMaxCopiedDirectoryBits ? directory_copy() : nullptr;
  }

  uint64_t block_count() const { return descriptor.block_count; }
  unsigned prefix_bits() const { return descriptor.prefix_bits; }
  uint64_t key(uint64_t block) const { return format::load_le64(keys + 8 * block); }
  uint64_t rank(uint64_t block) const { return format::load_le64(ranks + 8 * block); }
  const uint8_t* block(uint64_t j) const { return blocks + j * block_bytes; }
  uint64_t first_entry(uint64_t block) const { return format::load_le64(this->block(block) + 8); }

  // Where a scan for the entries >= x starts: a block before which every entry is < x, and which
  // holds the first entry >= x or ends below x (the scan then goes on to the next block);
  // block_count() when no entry is >= x. From the directory when the table has one (its entry, a
  // guess among the slot's blocks, then the first entries of the blocks around the guess), else by
  // searching the keys. Always in bounds, whatever a hostile file holds.
  uint64_t scan_start(uint64_t x) const { return choose_candidate(x, candidates(x)); }
  // The two steps of scan_start, apart so that a query can prefetch between them for all its
  // tables at once: the blocks [first, last] among which the answer lies (first == last: it is
  // first), read from the directory entry of x's slot (directory_entry_address), and `guess`, where
  // interpolation puts x among them (1 to 2 blocks a slot up to 2^19 blocks; about 8 at 100M
  // fingerprints, whose directory simdex caps at 2^18 slots; more where values are dense in one
  // slot); then the choice, a walk from the guess by the blocks' first entries, which on random
  // values stays on the page the guess reads (bench/RESULTS.md: about one page a cold probe).
  struct Candidates {
    uint64_t first, last;
    uint64_t guess = first;
  };
  Candidates candidates(uint64_t x) const;
  uint64_t choose_candidate(uint64_t x, Candidates c) const;
  const void* directory_entry_address(uint64_t x) const {
    const uint64_t slot = x >> (64 - directory_bits);
    const uint32_t* copy = copied_directory();
    return copy ? static_cast<const void*>(copy + slot) : directory + 4 * slot;
  }
  // The first block whose key (last entry) is >= x; block_count() when there is none. Only the keys
  // of x's candidates when the table has a directory; searched by interpolation alternating with
  // bisection, so O(log log) on uniform keys and O(log) at worst; always in
  // bounds, even over keys a corrupt file left unsorted. With `from`, the search starts there (a
  // batch whose searches ascend): the first block at or after `from` whose key is >= x. With `to`
  // (<= block_count()), the answer is known to lie in [from, to]: only those keys are read.
  uint64_t first_block_not_below(uint64_t x, uint64_t from = 0) const {
    return first_block_not_below(x, from, block_count());
  }
  uint64_t first_block_not_below(uint64_t x, uint64_t from, uint64_t to) const;

 private:
  // first_block_not_below's search of the keys in [from, to], the directory left out.
  uint64_t search_keys(uint64_t x, uint64_t from, uint64_t to) const;
};

class IndexFile {
 public:
  // Throws Error with the rule's code when the bytes break an open-time rule.
  static IndexFile parse(const uint8_t* data, std::size_t size);

  const format::FileHeader& header() const { return header_; }
  const std::vector<TableView>& tables() const { return tables_; }
  // The tables a search within k reads, ascending (format::tables_within over their prefixes):
  // below the index's k some group nothing an earlier table does not (k = 0: table 0 alone). Found
  // on first use of each k; Error(usage) above max_distance, as search_distance.
  const std::vector<uint32_t>& tables_within(unsigned k) const;
  const std::vector<format::SectionEntry>& sections() const { return sections_; }

  // Tagged sections (spec/FORMAT.md §5.1; none in a 1.x file): the section directory, whose places
  // and sizes parse() checked against the file's bounds, and the bytes of the section with `tag`
  // (nullopt when the file has none). The bytes are not checksummed here: a section read at open
  // calls format::check_tagged_checksum first; verify() checks every one. Decode them with bounds
  // checks of your own (a hostile file may hold anything that hashes right).
  const std::vector<format::TaggedSectionEntry>& tagged_sections() const { return tagged_; }
  std::optional<std::span<const uint8_t>> tagged_section(uint32_t tag) const;
  // FINGERPRINT_SETTINGS (§5.2), checked at open; nullopt when the index was not built from text.
  const std::optional<FingerprintSettings>& fingerprint_settings() const { return fingerprint_settings_; }
  const uint8_t* data() const { return data_; }
  std::size_t size() const { return size_; }

  const uint8_t* block(const TableView& t, uint64_t j) const { return t.block(j); }
  format::BlockCursor cursor(const TableView& t, uint64_t j) const {
    const uint8_t* b = block(t, j);
    return {b, header_.block_bytes, static_cast<std::size_t>(data_ + size_ - b), t.decode_table()};
  }
  // Decodes block j of table t (see format::decode_block); throws Error(bad_block) on a bad block.
  template <typename Visit>
  format::BlockResult decode(const TableView& t, uint64_t j, Visit&& visit) const {
    return checked(t, j, format::decode_block(cursor(t, j), visit));
  }
  // Block ja of table ta and block jb of table tb decoded in turn (format::decode_two_blocks),
  // checked as decode does. Always inlined, as reader::probe_two is.
  template <typename VisitA, typename VisitB>
  [[gnu::always_inline]] std::pair<format::BlockResult, format::BlockResult> decode_two(
      const TableView& ta, uint64_t ja, VisitA&& visit_a, const TableView& tb, uint64_t jb,
      VisitB&& visit_b) const {
    const auto [ra, rb] = format::decode_two_blocks(cursor(ta, ja), visit_a, cursor(tb, jb), visit_b);
    return {checked(ta, ja, ra), checked(tb, jb, rb)};
  }
  format::BlockResult checked(const TableView& t, uint64_t j, const format::BlockResult& r) const {
    if (r.status != format::BlockStatus::ok && r.status != format::BlockStatus::stopped)
      throw_block_error(t, j, r);
    return r;
  }
  [[noreturn]] void throw_block_error(const TableView& t, uint64_t j, const format::BlockResult& r) const;
  std::string where(const TableView& t, uint64_t j) const;

  // The k a search uses: the header's max_distance when k < 0, else k; Error(usage) when k is above
  // max_distance, since the tables find nothing farther. The one place this rule lives.
  unsigned search_distance(int64_t k) const;

  // The ids of the fingerprint at `rank` in table 0; throws Error(bad_ids) when its offsets are
  // out of range.
  IdList ids_at_rank(uint64_t rank) const;
  // The rank of `fingerprint` in table 0, or UINT64_MAX when it is not stored.
  uint64_t rank_of(uint64_t fingerprint) const;
  // rank_of of each fingerprint into ranks (as many), the lookups' cache misses overlapping.
  void ranks_of(std::span<const uint64_t> fingerprints, std::span<uint64_t> ranks) const;
  // The rank of entry i of block j of table t as BLOCK_RANKS gives it, checked (overflow-safe) to be
  // below n before it indexes anything: Error(block_ranks) otherwise. BLOCK_RANKS is a verify rule,
  // so an opened file may hold any value there.
  uint64_t rank_at(const TableView& t, uint64_t j, uint64_t i) const {
    const uint64_t base = t.rank(j), n = header_.fingerprint_count;
    if (base >= n || i >= n - base) throw_rank_error(t, j, i);
    return base + i;
  }
  [[noreturn]] void throw_rank_error(const TableView& t, uint64_t j, uint64_t i) const;

 private:
  const uint8_t* data_ = nullptr;
  std::size_t size_ = 0;
  format::FileHeader header_;
  std::vector<TableView> tables_;
  std::vector<format::SectionEntry> sections_;
  std::vector<format::TaggedSectionEntry> tagged_;
  std::optional<FingerprintSettings> fingerprint_settings_;
  const uint8_t* id_offsets_ = nullptr;
  const uint8_t* ids_ = nullptr;
  // What the tables build on first use, one slot per table: the decode tables
  // (TableView::decode_table) and the directories' copies (TableView::directory_copy).
  template <typename T, typename Owned = T>
  struct LazySlots {
    std::unique_ptr<std::atomic<const T*>[]> slots;
    std::size_t count = 0;
    explicit LazySlots(std::size_t n) : slots(std::make_unique<std::atomic<const T*>[]>(n)), count(n) {}
    LazySlots(const LazySlots&) = delete;
    LazySlots& operator=(const LazySlots&) = delete;
    ~LazySlots() {
      for (std::size_t i = 0; i < count; ++i) delete_owned(slots[i].load());
    }
    static void delete_owned(const T* p) {
      if constexpr (std::is_array_v<Owned>)
        delete[] p;
      else
        delete p;
    }
  };
  std::unique_ptr<LazySlots<format::DecodeTable>> decode_tables_;
  std::unique_ptr<LazySlots<uint32_t, uint32_t[]>> directory_copies_;
  std::unique_ptr<LazySlots<std::vector<uint32_t>>> tables_within_;  // one slot per k <= max_distance
};

// Error(section_checksum) naming the first section that `wanted` picks whose bytes do not match
// its checksum: what a reader that carries sections' contents into a new file (a set's merge)
// checks first, so that damaged bytes are refused, not given fresh checksums. verify() checks all.
void require_section_checksums(const IndexFile& file,
                               const std::function<bool(const format::SectionEntry&)>& wanted);

// Per table, the original bit positions that form its prefix: two fingerprints share table t's
// prefix group iff (a XOR b) & mask[t] == 0, since a permutation maps XOR to XOR.
std::vector<uint64_t> prefix_masks(const IndexFile& file);

// The rank in table 0 of a fingerprint found in another table; Error(table_mismatch) when absent.
uint64_t rank_in_table0(const IndexFile& file, uint64_t fingerprint);
// The same for many (ranks: as many), their lookups' cache misses overlapping (IndexFile::ranks_of).
void ranks_in_table0(const IndexFile& file, std::span<const uint64_t> fingerprints,
                     std::span<uint64_t> ranks);

}  // namespace simdex::reader
