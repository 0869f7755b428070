// Re-sealing a mutated index file: recomputes its checksums as spec/FORMAT.md defines them, so that
// a test or a fuzz target gets past them to the rules behind. Fields are taken as the file holds
// them; a checksum whose bytes lie outside the file is left alone. Used by tests/corruption_test.cpp
// and the batch fuzz targets (tests/fuzz/fuzz_batch.cpp).
#pragma once

#include <cstddef>
#include <cstdint>

#include "format/checksum.h"
#include "format/endian.h"
#include "format/layout.h"

namespace simdex::test {

// E, the tagged sections of the section directory (§5.1): header bytes 88..91 of a 2.x file, none in 1.x.
inline uint32_t tagged_section_count(const uint8_t* file) {
  return format::load_le16(file + 8) >= 2 ? format::load_le32(file + 88) : 0;
}

// header_checksum (§3): XXH3-64 of the header region without its own 8 bytes.
inline void reseal_header(uint8_t* file, std::size_t size) {
  if (size < format::FileHeader::kEncodedBytes) return;
  const uint64_t region = format::header_region_bytes(format::load_le32(file + 40),  // table_count
                                                      tagged_section_count(file));
  if (region > size) return;
  format::store_le64(file + format::FileHeader::kChecksumOffset,
                     format::header_region_checksum(file, region));
}

// Every checksum: each block's block_checksum (§6), each section's checksum (§5) and tagged section's
// (§5.1), then the header's.
inline void reseal(uint8_t* file, std::size_t size) {
  if (size < format::FileHeader::kEncodedBytes) return;
  const uint32_t table_count = format::load_le32(file + 40);
  const uint64_t block_bytes = format::load_le32(file + 48);
  const uint32_t tagged = tagged_section_count(file);
  if (format::header_region_bytes(table_count, tagged) > size) return;
  const uint64_t section_table =
      format::FileHeader::kEncodedBytes + uint64_t{table_count} * format::TableDescriptor::kEncodedBytes;
  const uint32_t sections = format::section_count_for(table_count);
  for (uint32_t i = 0; i < sections + tagged; ++i) {
    uint8_t* entry = file + section_table + uint64_t{i} * format::SectionEntry::kEncodedBytes;
    const uint64_t offset = format::load_le64(entry + 8), bytes = format::load_le64(entry + 16);
    if (offset > size || bytes > size - offset) continue;
    if (i < sections && format::expected_section_kind(i, table_count) == format::SectionKind::blocks &&
        block_bytes > format::kBlockChecksumBytes)
      for (uint64_t at = offset; at + block_bytes <= offset + bytes; at += block_bytes)
        format::store_le32(file + at, format::checksum32(file + at + format::kBlockChecksumBytes,
                                                         block_bytes - format::kBlockChecksumBytes));
    format::store_le64(entry + 24, format::checksum64(file + offset, bytes));  // same place in both entries
  }
  reseal_header(file, size);
}

}  // namespace simdex::test
