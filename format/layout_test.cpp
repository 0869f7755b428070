#include "format/layout.h"

#include <doctest/doctest.h>

#include <vector>

#include "format/header_region.h"
#include "simdex/error.h"

using namespace simdex::format;

TEST_CASE("header, descriptor and section entry round-trip") {
  FileHeader h;
  h.file_bytes = 123456;
  h.fingerprint_count = 77;
  h.id_count = 99;
  h.table_count = 4;
  h.section_count = section_count_for(4);
  h.block_bytes = 512;
  h.max_distance = 3;
  h.scheme_name = "paper-4";
  h.header_checksum = 0x0123456789abcdef;
  std::vector<uint8_t> buf(FileHeader::kEncodedBytes);
  h.encode_to(buf.data());
  const FileHeader d = FileHeader::decode_from(buf.data());
  CHECK(d.file_bytes == h.file_bytes);
  CHECK(d.fingerprint_count == 77);
  CHECK(d.id_count == 99);
  CHECK(d.table_count == 4);
  CHECK(d.section_count == 14);
  CHECK(d.block_bytes == 512);
  CHECK(d.scheme_name == "paper-4");
  CHECK(d.header_checksum == h.header_checksum);
  buf[0] ^= 1;
  CHECK_THROWS_WITH_AS(FileHeader::decode_from(buf.data()), doctest::Contains("bad_magic"), simdex::Error);
  buf[0] ^= 1;
  buf[8] = 3;
  CHECK_THROWS_WITH_AS(FileHeader::decode_from(buf.data()), doctest::Contains("unsupported_version"),
                       simdex::Error);

  SectionEntry e{SectionKind::ids, kNoTable, 4096, 800, 42};
  std::vector<uint8_t> sbuf(SectionEntry::kEncodedBytes);
  e.encode_to(sbuf.data());
  const auto e2 = SectionEntry::decode_from(sbuf.data());
  CHECK(e2.kind == SectionKind::ids);
  CHECK(e2.offset == 4096);
  CHECK(e2.checksum == 42);
}

TEST_CASE("section order: per table blocks, keys, ranks; then id offsets and ids") {
  CHECK(expected_section_kind(0, 2) == SectionKind::blocks);
  CHECK(expected_section_kind(4, 2) == SectionKind::block_keys);
  CHECK(expected_section_table(4, 2) == 1);
  CHECK(expected_section_kind(6, 2) == SectionKind::id_offsets);
  CHECK(expected_section_kind(7, 2) == SectionKind::ids);
  CHECK(expected_section_table(7, 2) == kNoTable);
  CHECK(header_region_bytes(1) == 128 + 160 + 5 * 32);
}

TEST_CASE("header region: what the writer encodes the reader decodes, checked by the same rules") {
  HeaderRegion r;
  r.header.file_bytes = header_region_bytes(1) + 32 + 8 + 8 + 8 * 2 + 8;  // n = 1, one id, B = 32
  r.header.fingerprint_count = 1;
  r.header.id_count = 1;
  r.header.block_bytes = 32;
  r.header.max_distance = 0;
  r.header.id_layout = IdLayout::offsets;
  r.header.scheme_name = "custom";
  r.tables.resize(1);
  for (unsigned j = 0; j < 64; ++j) r.tables[0].source_bit[j] = static_cast<uint8_t>(j);
  r.tables[0].block_count = 1;
  uint64_t at = header_region_bytes(1);
  for (uint64_t bytes : {32, 8, 8, 16, 8}) {
    const uint32_t i = static_cast<uint32_t>(r.sections.size());
    r.sections.push_back({expected_section_kind(i, 1), expected_section_table(i, 1), at, bytes, 0});
    at += bytes;
  }
  std::vector<uint8_t> file(r.header.file_bytes, 0);
  r.encode_to(file.data());
  const HeaderRegion d = HeaderRegion::decode_from(file.data(), file.size());
  CHECK(d.header.table_count == 1);
  CHECK(d.header.section_count == 5);
  CHECK(d.header.scheme_name == "custom");
  CHECK(d.tables[0].block_count == 1);
  CHECK(d.sections[3].bytes == 16);
  CHECK(d.sections[4].offset == header_region_bytes(1) + 64);

  CHECK(check_block_bytes(32).empty());
  CHECK(!check_block_bytes(24).empty());
  CHECK(!check_block_bytes(1028).empty());
  CHECK(!check_table_count(0).empty());
  CHECK(!check_table_count(kMaxTables + 1).empty());
  CHECK(!check_scheme_name("tab\there").empty());
  CHECK(!check_scheme_name(std::string(33, 'a')).empty());
  r.header.block_bytes = 24;  // a writer's bad value is a reader's bad_header_field
  r.encode_to(file.data());
  CHECK_THROWS_WITH_AS(HeaderRegion::decode_from(file.data(), file.size()),
                       doctest::Contains("bad_header_field"), simdex::Error);
}
