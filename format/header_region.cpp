#include "format/header_region.h"

#include <optional>
#include <string>

#include "format/endian.h"
#include "format/huffman.h"
#include "format/permutation.h"
#include "simdex/error.h"

namespace simdex::format {

namespace {

[[noreturn]] void fail(errc code, const std::string& what) { throw Error(code, what); }

// The size §5 requires of section `index`; nullopt when it overflows 64 bits.
std::optional<uint64_t> expected_section_bytes(uint32_t index, const FileHeader& h,
                                               const std::vector<TableDescriptor>& tables) {
  const uint32_t table = expected_section_table(index, h.table_count);
  uint64_t count = 0, unit = 8;
  switch (expected_section_kind(index, h.table_count)) {
    case SectionKind::blocks:
      count = tables[table].block_count, unit = h.block_bytes;
      break;
    case SectionKind::block_keys:
    case SectionKind::block_ranks:
      count = tables[table].block_count;
      break;
    case SectionKind::id_offsets:
      if (h.id_layout == IdLayout::single) return 0;
      if (h.fingerprint_count == UINT64_MAX) return std::nullopt;
      count = h.fingerprint_count + 1;
      break;
    case SectionKind::ids:
      count = h.id_count;
      break;
  }
  uint64_t bytes;
  if (__builtin_mul_overflow(count, unit, &bytes)) return std::nullopt;
  return bytes;
}

// The FileHeader's rules up to the header checksum (spec §10, rows 1..7).
FileHeader decode_header(const uint8_t* file, uint64_t size) {
  if (size < FileHeader::kEncodedBytes)  // under 8 bytes not even the magic tells an index from a set
    fail(errc::file_too_small,
         std::to_string(size) + (size < 8 ? " bytes, less than an index's 128-byte header "
                                            "or a set manifest's 64 bytes"
                                          : " bytes, less than the 128-byte header"));
  FileHeader h = FileHeader::decode_from(file);
  if (h.file_bytes != size)
    fail(errc::file_size_mismatch, "the header says " + std::to_string(h.file_bytes) +
                                       " bytes, the file has " + std::to_string(size) +
                                       " (truncated or appended to)");
  if (auto why = check_table_count(h.table_count); !why.empty()) fail(errc::bad_header_field, why);
  if (h.section_count != section_count_for(h.table_count))
    fail(errc::bad_header_field,
         "section_count " + std::to_string(h.section_count) + " is not 3 * table_count + 2");
  if (h.tagged_section_count > kMaxTaggedSections)
    fail(errc::bad_header_field, "tagged_section_count " + std::to_string(h.tagged_section_count) + " > " +
                                     std::to_string(kMaxTaggedSections));
  const uint64_t region = header_region_bytes(h.table_count, h.tagged_section_count);
  if (region > size)
    fail(errc::file_too_small, "the header region needs " + std::to_string(region) + " bytes");
  if (header_region_checksum(file, region) != h.header_checksum)
    fail(errc::header_checksum, "header checksum mismatch");
  h.check_fields(file);
  return h;
}

// Table t's descriptor rules, in the order of spec §10.
TableDescriptor decode_table(const uint8_t* in, uint32_t t, uint64_t n) {
  TableDescriptor d = TableDescriptor::decode_from(in, t);
  const std::string name = "table " + std::to_string(t) + ": ";
  if (auto why = Permutation::check(d.source_bit); !why.empty()) fail(errc::bad_permutation, name + why);
  if (auto why = check_code_lengths(d.code_length, n); !why.empty()) fail(errc::bad_code_lengths, name + why);
  if ((n == 0 && d.block_count != 0) || (n > 0 && (d.block_count == 0 || d.block_count > n)))
    fail(errc::bad_header_field,
         name + "block_count " + std::to_string(d.block_count) + " for " + std::to_string(n) + " entries");
  return d;
}

}  // namespace

void HeaderRegion::encode_to(uint8_t* out) const {
  FileHeader h = header;
  h.table_count = static_cast<uint32_t>(tables.size());
  h.section_count = static_cast<uint32_t>(sections.size());
  h.tagged_section_count = static_cast<uint32_t>(tagged.size());
  h.encode_to(out);
  uint8_t* p = out + FileHeader::kEncodedBytes;
  for (const auto& d : tables) {
    d.encode_to(p);
    p += TableDescriptor::kEncodedBytes;
  }
  for (const auto& e : sections) {
    e.encode_to(p);
    p += SectionEntry::kEncodedBytes;
  }
  for (const auto& e : tagged) {
    e.encode_to(p);
    p += TaggedSectionEntry::kEncodedBytes;
  }
  store_le64(out + FileHeader::kChecksumOffset, header_region_checksum(out, encoded_bytes()));
}

HeaderRegion HeaderRegion::decode_from(const uint8_t* file, uint64_t size) {
  HeaderRegion r;
  const FileHeader& h = r.header = decode_header(file, size);
  const uint8_t* p = file + FileHeader::kEncodedBytes;
  for (uint32_t t = 0; t < h.table_count; ++t, p += TableDescriptor::kEncodedBytes)
    r.tables.push_back(decode_table(p, t, h.fingerprint_count));

  uint64_t expected_offset = header_region_bytes(h.table_count, h.tagged_section_count);
  for (uint32_t i = 0; i < h.section_count; ++i, p += SectionEntry::kEncodedBytes) {
    const SectionEntry& s = r.sections.emplace_back(SectionEntry::decode_from(p));
    const SectionKind kind = expected_section_kind(i, h.table_count);
    const uint32_t table = expected_section_table(i, h.table_count);
    const std::string name = "section " + std::to_string(i) + " (" + section_kind_name(kind) +
                             (table == kNoTable ? "" : " of table " + std::to_string(table)) + "): ";
    if (s.kind != kind || s.table != table)
      fail(errc::section_layout, name + "kind " + std::to_string(static_cast<uint32_t>(s.kind)) + " table " +
                                     std::to_string(s.table) + " out of order");
    const std::optional<uint64_t> want = expected_section_bytes(i, h, r.tables);
    if (s.offset != expected_offset)
      fail(errc::section_layout,
           name + "starts at " + std::to_string(s.offset) + ", expected " + std::to_string(expected_offset));
    if (!want) fail(errc::section_layout, name + "size overflows 64 bits");
    if (s.bytes != *want)
      fail(errc::section_layout,
           name + std::to_string(s.bytes) + " bytes, expected " + std::to_string(*want));
    if (s.bytes > size - s.offset) fail(errc::section_layout, name + "runs past the end of the file");
    expected_offset = s.offset + s.bytes;
  }
  for (uint32_t i = 0; i < h.tagged_section_count; ++i, p += TaggedSectionEntry::kEncodedBytes)
    r.tagged.push_back(TaggedSectionEntry::decode_from(p));
  if (r.tagged.empty() && expected_offset != size)
    fail(errc::section_layout,
         "the sections end at " + std::to_string(expected_offset) + ", the file at " + std::to_string(size));
  check_section_directory(r.tagged, expected_offset, size);
  return r;
}

}  // namespace simdex::format
