// The header region [0, R) of a simdex file (spec/FORMAT.md §2): the FileHeader, the table
// descriptors, the section table and the section directory of tagged sections (version 2), encoded by the
// writer and decoded and checked by the reader with the same code. decode_from checks every open rule of spec
// §10, in the spec's order.
#pragma once

#include <cstdint>
#include <vector>

#include "format/layout.h"
#include "format/tagged_sections.h"

namespace simdex::format {

struct HeaderRegion {
  FileHeader header;
  std::vector<TableDescriptor> tables;
  std::vector<SectionEntry> sections;      // section_count_for(tables.size()), in the order of §5
  std::vector<TaggedSectionEntry> tagged;  // the section directory (§5.1), ascending tags; empty in 1.x

  uint64_t encoded_bytes() const {
    return header_region_bytes(static_cast<uint32_t>(tables.size()), static_cast<uint32_t>(tagged.size()));
  }
  // Writes encoded_bytes() bytes. header.table_count, section_count and tagged_section_count come
  // from the vectors, and header_checksum is computed over what is written (the header's own value is
  // ignored). A 1.x header (version_major 1) has no directory: `tagged` must be empty.
  void encode_to(uint8_t* out) const;
  // Decodes the region of a whole file of `file_size` bytes at `file` and checks it against every
  // open rule of spec §10: the header, each table's descriptor, permutation, code lengths and
  // block count, and the sizes and places of the sections. Throws Error with the rule's code.
  static HeaderRegion decode_from(const uint8_t* file, uint64_t file_size);
};

}  // namespace simdex::format
