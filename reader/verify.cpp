// Index::verify: reads every byte and checks every rule of spec/FORMAT.md that open() leaves out
// because it costs more than O(table count).
#include <algorithm>
#include <bit>

#include "format/block_directory.h"
#include "format/checksum.h"
#include "format/coverage.h"
#include "reader/index_impl.h"

namespace simdex {

namespace {

constexpr std::size_t kMaxProblems = 100;

// How verify and require_section_checksums name section i: "section 3 (BLOCKS of table 1".
std::string section_name(std::size_t i, const format::SectionEntry& s) {
  return "section " + std::to_string(i) + " (" + format::section_kind_name(s.kind) +
         (s.table == format::kNoTable ? "" : " of table " + std::to_string(s.table));
}

bool checksum_matches(const reader::IndexFile& file, uint64_t offset, uint64_t bytes, uint64_t checksum) {
  return format::checksum64(file.data() + offset, bytes) == checksum;
}

// An order-independent hash of a set of fingerprints: every table must hold the same set.
uint64_t mix(uint64_t x) {  // splitmix64's finaliser
  x ^= x >> 30;
  x *= 0xbf58476d1ce4e5b9ULL;
  x ^= x >> 27;
  x *= 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

class Checker {
 public:
  Checker(const reader::IndexFile& file, VerifyReport& report) : file_(file), report_(report) {}

  bool add(errc code, std::string where, std::string what) {
    if (report_.problems.size() < kMaxProblems)
      report_.problems.push_back({code, std::move(where), std::move(what)});
    return false;
  }
  bool full() const { return report_.problems.size() >= kMaxProblems; }

  void sections() {
    // `name` is called only for a mismatch: no string is built per section of a good file.
    auto check = [&](uint64_t offset, uint64_t bytes, uint64_t checksum, auto&& name) {
      report_.bytes_checked += bytes;
      if (!checksum_matches(file_, offset, bytes, checksum))
        add(errc::section_checksum, name() + ", offset " + std::to_string(offset) + ")", "checksum mismatch");
    };
    const auto& sections = file_.sections();
    for (std::size_t i = 0; i < sections.size(); ++i) {
      const auto& s = sections[i];
      check(s.offset, s.bytes, s.checksum, [&] { return section_name(i, s); });
    }
    // Tagged sections, known or not. FINGERPRINT_SETTINGS and BLOCK_DIRECTORY's head were checked
    // at open, BLOCK_DIRECTORY's entries by directories().
    const auto& tagged = file_.tagged_sections();
    for (std::size_t i = 0; i < tagged.size(); ++i)
      check(tagged[i].offset, tagged[i].bytes, tagged[i].checksum, [&] {
        return "tagged section " + std::to_string(i) + " (" + format::describe_tag(tagged[i].tag);
      });
  }

  // Returns the set hash of the table's fingerprints, or nothing when a block could not be decoded
  // (then its entries are unknown and the table is left out of the comparison of tables).
  std::optional<uint64_t> table(const reader::TableView& t) {
    const auto& h = file_.header();
    const uint32_t b = h.block_bytes;
    uint64_t set_hash = 0;
    uint64_t counted = 0;  // sum of the entry_count fields of the blocks so far
    bool decoded_all = true;
    for (uint64_t j = 0; j < t.block_count() && !full(); ++j) {
      ++report_.blocks_checked;
      const uint8_t* block = file_.block(t, j);
      const std::string where = file_.where(t, j);
      // Ranks against the blocks' own entry counts, whether or not the blocks are sound.
      if (t.rank(j) != counted)
        add(errc::block_ranks, where,
            "BLOCK_RANKS says " + std::to_string(t.rank(j)) + ", the entry counts before it sum to " +
                std::to_string(counted));
      counted += format::load_le32(block + 4);
      if (format::checksum32(block + format::kBlockChecksumBytes, b - format::kBlockChecksumBytes) !=
          format::load_le32(block)) {
        decoded_all =
            add(errc::block_checksum, where, "block checksum mismatch (the block is not decoded further)");
        continue;
      }
      const uint64_t previous_key = j > 0 ? t.key(j - 1) : 0;
      bool first_above_previous = true;
      const auto r =
          format::decode_block(block, b, static_cast<std::size_t>(file_.data() + file_.size() - block),
                               t.decode_table(), [&](uint64_t e, uint32_t i) {
                                 if (i == 0 && j > 0 && e <= previous_key) first_above_previous = false;
                                 set_hash += mix(t.permutation.invert(e));
                                 return true;
                               });
      if (r.status != format::BlockStatus::ok) {
        decoded_all = add(errc::bad_block, where, format::block_status_text(r.status));
        continue;
      }
      if (!format::block_padding_is_zero(block, b, r.end_bit))
        add(errc::bad_block, where, "padding after the last entry is not zero");
      if (!first_above_previous)
        add(errc::keys_order, where, "first entry not above the previous block's key");
      if (r.last != t.key(j)) add(errc::keys_order, where, "BLOCK_KEYS entry is not the block's last entry");
    }
    if (counted != h.fingerprint_count && !full())
      add(errc::block_ranks, "table " + std::to_string(t.index),
          "the blocks' entry counts sum to " + std::to_string(counted) + ", the header says " +
              std::to_string(h.fingerprint_count) + " entries");
    return decoded_all ? std::optional<uint64_t>(set_hash) : std::nullopt;
  }

  // Every BLOCK_DIRECTORY entry is the first block whose key is at least its slot's first value
  // (spec §5.3), recomputed from BLOCK_KEYS; every wrong entry is reported (up to kMaxProblems).
  void directories() {
    for (const reader::TableView& t : file_.tables()) {
      if (!t.directory || full()) continue;
      uint64_t j = 0;
      format::for_each_slot_block(
          t.directory_bits, t.block_count(), [&] { return t.key(j++); },
          [&](uint64_t slot, uint64_t block) {
            const uint32_t entry = format::load_le32(t.directory + 4 * slot);
            if (entry == block || full()) return;
            add(errc::bad_tagged_section,
                "BLOCK_DIRECTORY of table " + std::to_string(t.index) + ", slot " + std::to_string(slot),
                "entry " + std::to_string(entry) + ", but the first block whose key is at least the slot's " +
                    "first value is " + std::to_string(block));
          });
    }
  }

  // The tables find every fingerprint within max_distance (spec rule `coverage`).
  void coverage() {
    const std::vector<uint64_t> masks = reader::prefix_masks(file_);
    const unsigned k = file_.header().max_distance;
    const format::Coverage c = format::check_coverage(masks, k);
    if (c.status == format::Coverage::Status::covered) return;
    if (c.status == format::Coverage::Status::unchecked) {
      report_.unchecked.push_back(
          {errc::coverage, "tables",
           "not decided within " + std::to_string(format::kCoverageBudget) + " search steps"});
      return;
    }
    std::string bits;
    for (uint64_t rest = c.uncovered; rest != 0; rest &= rest - 1)
      bits += (bits.empty() ? "" : ", ") + std::to_string(std::countr_zero(rest));
    add(errc::coverage, "tables",
        "max_distance is " + std::to_string(k) + " but fingerprints differing in bits {" + bits +
            "} share no table's prefix: queries and pairs would miss them");
  }

  void ids() {
    const auto& h = file_.header();
    const auto& sections = file_.sections();
    const uint8_t* offsets = file_.data() + sections[sections.size() - 2].offset;
    const uint8_t* ids = file_.data() + sections.back().offset;
    const bool single = h.id_layout == format::IdLayout::single;
    if (!single && format::load_le64(offsets) != 0) add(errc::bad_ids, "ID_OFFSETS[0]", "not 0");
    for (uint64_t r = 0; r < h.fingerprint_count && !full(); ++r) {
      const uint64_t lo = single ? r : format::load_le64(offsets + 8 * r);
      const uint64_t hi = single ? r + 1 : format::load_le64(offsets + 8 * r + 8);
      if (lo >= hi || hi > h.id_count) {
        add(errc::bad_ids, "ID_OFFSETS[" + std::to_string(r) + "]", "offsets not ascending within IDS");
        continue;
      }
      for (uint64_t i = lo + 1; i < hi; ++i)
        if (format::load_le64(ids + 8 * i) <= format::load_le64(ids + 8 * (i - 1))) {
          add(errc::bad_ids, "IDS[" + std::to_string(i) + "]",
              "ids of one fingerprint not strictly ascending");
          break;
        }
    }
    if (!single && h.fingerprint_count > 0 &&
        format::load_le64(offsets + 8 * h.fingerprint_count) != h.id_count)
      add(errc::bad_ids, "ID_OFFSETS[" + std::to_string(h.fingerprint_count) + "]", "not id_count");
  }

 private:
  const reader::IndexFile& file_;
  VerifyReport& report_;
};

}  // namespace

namespace {
VerifyReport verify_unchecked(const Index::Impl& impl) {
  const SequentialScan sequential(impl);
  const reader::IndexFile& file = impl.file;
  VerifyReport report;
  Checker check(file, report);
  check.coverage();
  check.sections();
  std::optional<uint64_t> reference;
  for (const auto& t : file.tables()) {
    const auto set_hash = check.table(t);
    if (!set_hash) continue;
    if (!reference)
      reference = set_hash;
    else if (*set_hash != *reference)
      check.add(errc::table_mismatch, "table " + std::to_string(t.index),
                "holds other fingerprints than the tables before it");
  }
  check.ids();
  check.directories();
  return report;
}
}  // namespace

namespace reader {
void require_section_checksums(const IndexFile& file,
                               const std::function<bool(const format::SectionEntry&)>& wanted) {
  const auto& sections = file.sections();
  for (std::size_t i = 0; i < sections.size(); ++i) {
    const auto& s = sections[i];
    if (wanted(s) && !checksum_matches(file, s.offset, s.bytes, s.checksum))
      throw Error(errc::section_checksum,
                  section_name(i, s) + ", offset " + std::to_string(s.offset) + "): checksum mismatch");
  }
}
}  // namespace reader

VerifyReport Index::verify() const {
  if (impl_->composite) return impl_->composite->verify();
  return read_checked(*impl_, true, [&] { return verify_unchecked(*impl_); });
}

}  // namespace simdex
