#include "format/layout.h"

#include <doctest/doctest.h>

#include <vector>

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
  buf[8] = 2;
  CHECK_THROWS_WITH_AS(FileHeader::decode_from(buf.data()), doctest::Contains("unsupported_version"), simdex::Error);

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
