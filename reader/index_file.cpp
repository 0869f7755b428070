#include "reader/index_file.h"

#include <algorithm>

#include "format/checksum.h"

namespace simdex::reader {

namespace {

using format::FileHeader;
using format::SectionKind;

[[noreturn]] void fail(errc code, const std::string& what) { throw Error(code, what); }

bool all_zero(const uint8_t* p, std::size_t n) {
  return std::all_of(p, p + n, [](uint8_t b) { return b == 0; });
}

// a * b, or fail when it does not fit in 64 bits.
uint64_t checked_mul(uint64_t a, uint64_t b, const std::string& what) {
  uint64_t r;
  if (__builtin_mul_overflow(a, b, &r)) fail(errc::section_layout, what + " overflows 64 bits");
  return r;
}

void check_header_fields(const uint8_t* in, const FileHeader& h) {
  if (!all_zero(in + 12, 4)) fail(errc::reserved_nonzero, "header flags (bytes 12..15) not zero");
  if (!all_zero(in + 54, 2)) fail(errc::reserved_nonzero, "header bytes 54..55 not zero");
  if (!all_zero(in + 88, 32)) fail(errc::reserved_nonzero, "header bytes 88..119 not zero");
  const std::size_t name_len = h.scheme_name.size();
  if (!all_zero(in + 56 + name_len, format::kSchemeNameBytes - name_len))
    fail(errc::reserved_nonzero, "scheme_name: bytes after its first zero byte are not zero");
  for (char c : h.scheme_name)
    if (c < 0x20 || c > 0x7e) fail(errc::bad_header_field, "scheme_name holds a byte that is not printable ASCII");
  const uint32_t b = h.block_bytes;
  if (b < format::kMinBlockBytes || b > format::kMaxBlockBytes || b % 8 != 0)
    fail(errc::bad_header_field, "block_bytes " + std::to_string(b) + " is not a multiple of 8 in [32, 1048576]");
  if (h.max_distance > 64) fail(errc::bad_header_field, "max_distance " + std::to_string(h.max_distance) + " > 64");
  if (h.id_layout != format::IdLayout::offsets && h.id_layout != format::IdLayout::single)
    fail(errc::bad_header_field, "id_layout " + std::to_string(static_cast<unsigned>(h.id_layout)) + " is neither 0 nor 1");
  if (h.id_count < h.fingerprint_count)
    fail(errc::bad_header_field, "id_count " + std::to_string(h.id_count) + " < fingerprint_count " + std::to_string(h.fingerprint_count));
  if (h.fingerprint_count == 0 && h.id_count != 0) fail(errc::bad_header_field, "ids without fingerprints");
  if (h.id_layout == format::IdLayout::single && h.id_count != h.fingerprint_count)
    fail(errc::bad_header_field, "id_layout 1 (one id each) but id_count != fingerprint_count");
}

}  // namespace

uint64_t TableView::first_block_not_below(uint64_t x, uint64_t from) const {
  uint64_t left = std::min(from, block_count()), right = block_count();  // the answer lies in [left, right]
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
    if (key(probe) < x) left = probe + 1;
    else right = probe;
  }
  while (left < right && key(left) < x) ++left;
  return left;
}

IndexFile IndexFile::parse(const uint8_t* data, std::size_t size) {
  IndexFile f;
  f.data_ = data;
  f.size_ = size;
  if (size < FileHeader::kEncodedBytes)
    fail(errc::file_too_small, std::to_string(size) + " bytes, less than the 128-byte header");
  FileHeader& h = f.header_ = FileHeader::decode_from(data);
  if (h.file_bytes != size)
    fail(errc::file_size_mismatch, "the header says " + std::to_string(h.file_bytes) + " bytes, the file has " +
                                       std::to_string(size) + " (truncated or appended to)");
  if (h.table_count == 0 || h.table_count > format::kMaxTables)
    fail(errc::bad_header_field, "table_count " + std::to_string(h.table_count) + " is not in [1, 4096]");
  if (h.section_count != format::section_count_for(h.table_count))
    fail(errc::bad_header_field, "section_count " + std::to_string(h.section_count) + " is not 3 * table_count + 2");
  const uint64_t region = format::header_region_bytes(h.table_count);
  if (region > size) fail(errc::file_too_small, "the header region needs " + std::to_string(region) + " bytes");
  if (format::header_region_checksum(data, region) != h.header_checksum)
    fail(errc::header_checksum, "header checksum mismatch");
  check_header_fields(data, h);
  const uint64_t n = h.fingerprint_count;

  const uint8_t* p = data + FileHeader::kEncodedBytes;
  f.tables_.resize(h.table_count);
  f.decode_tables_ = std::make_unique<DecodeTables>();
  f.decode_tables_->slots = std::make_unique<std::atomic<const format::DecodeTable*>[]>(h.table_count);
  f.decode_tables_->count = h.table_count;
  for (uint32_t t = 0; t < h.table_count; ++t, p += format::TableDescriptor::kEncodedBytes) {
    TableView& view = f.tables_[t];
    view.index = t;
    view.descriptor = format::TableDescriptor::decode_from(p, t);
    const std::string name = "table " + std::to_string(t) + ": ";
    if (auto why = format::Permutation::check(view.descriptor.source_bit); !why.empty())
      fail(errc::bad_permutation, name + why);
    view.permutation = format::Permutation(view.descriptor.source_bit);
    if (auto why = format::check_code_lengths(view.descriptor.code_length, n); !why.empty())
      fail(errc::bad_code_lengths, name + why);
    view.decode_slot = &f.decode_tables_->slots[t];
    const uint64_t blocks = view.descriptor.block_count;
    if ((n == 0 && blocks != 0) || (n > 0 && (blocks == 0 || blocks > n)))
      fail(errc::bad_header_field, name + "block_count " + std::to_string(blocks) + " for " + std::to_string(n) + " entries");
  }

  uint64_t expected_offset = region;
  f.sections_.resize(h.section_count);
  for (uint32_t i = 0; i < h.section_count; ++i, p += format::SectionEntry::kEncodedBytes) {
    auto& s = f.sections_[i] = format::SectionEntry::decode_from(p);
    const SectionKind kind = format::expected_section_kind(i, h.table_count);
    const uint32_t table = format::expected_section_table(i, h.table_count);
    const std::string name = "section " + std::to_string(i) + " (" + format::section_kind_name(kind) +
                             (table == format::kNoTable ? "" : " of table " + std::to_string(table)) + "): ";
    if (s.kind != kind || s.table != table)
      fail(errc::section_layout, name + "kind " + std::to_string(static_cast<uint32_t>(s.kind)) + " table " +
                                     std::to_string(s.table) + " out of order");
    uint64_t want = 0;
    switch (kind) {
      case SectionKind::blocks: want = checked_mul(f.tables_[table].block_count(), h.block_bytes, name + "size"); break;
      case SectionKind::block_keys:
      case SectionKind::block_ranks: want = checked_mul(f.tables_[table].block_count(), 8, name + "size"); break;
      case SectionKind::id_offsets:
        if (h.id_layout == format::IdLayout::single) break;
        if (n == UINT64_MAX) fail(errc::section_layout, name + "size overflows 64 bits");
        want = checked_mul(n + 1, 8, name + "size");
        break;
      case SectionKind::ids: want = checked_mul(h.id_count, 8, name + "size"); break;
    }
    if (s.offset != expected_offset)
      fail(errc::section_layout, name + "starts at " + std::to_string(s.offset) + ", expected " + std::to_string(expected_offset));
    if (s.bytes != want)
      fail(errc::section_layout, name + std::to_string(s.bytes) + " bytes, expected " + std::to_string(want));
    if (s.bytes > size - s.offset) fail(errc::section_layout, name + "runs past the end of the file");
    expected_offset = s.offset + s.bytes;
    const uint8_t* at = data + s.offset;
    switch (kind) {
      case SectionKind::blocks: f.tables_[table].blocks = at; break;
      case SectionKind::block_keys: f.tables_[table].keys = at; break;
      case SectionKind::block_ranks: f.tables_[table].ranks = at; break;
      case SectionKind::id_offsets: f.id_offsets_ = at; break;
      case SectionKind::ids: f.ids_ = at; break;
    }
  }
  if (expected_offset != size)
    fail(errc::section_layout, "the sections end at " + std::to_string(expected_offset) + ", the file at " + std::to_string(size));
  return f;
}

const format::DecodeTable& TableView::build_decode_table() const {
  auto fresh = std::make_unique<format::DecodeTable>(descriptor.code_length);
  const format::DecodeTable* expected = nullptr;
  if (decode_slot->compare_exchange_strong(expected, fresh.get(), std::memory_order_acq_rel)) return *fresh.release();
  return *expected;  // another thread built it first
}

std::string IndexFile::where(const TableView& t, uint64_t j) const {
  return "table " + std::to_string(t.index) + " block " + std::to_string(j) + " (offset " +
         std::to_string(block(t, j) - data_) + ")";
}

void IndexFile::throw_block_error(const TableView& t, uint64_t j, const format::BlockResult& r) const {
  throw Error(errc::bad_block, where(t, j) + ": " + format::block_status_text(r.status));
}

void IndexFile::throw_rank_error(const TableView& t, uint64_t j, uint64_t i) const {
  throw Error(errc::block_ranks, where(t, j) + ": BLOCK_RANKS says " + std::to_string(t.rank(j)) + ", so entry " +
                                     std::to_string(i) + " would lie past the table's " +
                                     std::to_string(header_.fingerprint_count) + " entries");
}

IdList IndexFile::ids_at_rank(uint64_t rank) const {
  if (rank >= header_.fingerprint_count) throw Error(errc::bad_ids, "rank " + std::to_string(rank) + " out of range");
  if (header_.id_layout == format::IdLayout::single) return IdList(ids_ + 8 * rank, 1);
  const uint64_t lo = format::load_le64(id_offsets_ + 8 * rank), hi = format::load_le64(id_offsets_ + 8 * rank + 8);
  if (lo >= hi || hi > header_.id_count)
    throw Error(errc::bad_ids, "ID_OFFSETS[" + std::to_string(rank) + "..+1] = " + std::to_string(lo) + ", " +
                                   std::to_string(hi) + ": not an ascending range within IDS");
  return IdList(ids_ + 8 * lo, hi - lo);
}

uint64_t IndexFile::rank_of(uint64_t fingerprint) const {
  const TableView& t = tables_[0];
  const uint64_t x = t.permutation.apply(fingerprint);
  const uint64_t j = t.first_block_not_below(x);
  if (j >= t.block_count()) return UINT64_MAX;
  uint64_t rank = UINT64_MAX;
  decode(t, j, [&](uint64_t e, uint32_t i) {
    if (e == x) rank = rank_at(t, j, i);
    return e < x;
  });
  return rank;
}

}  // namespace simdex::reader
