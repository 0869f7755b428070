// The section directory of format 2 (spec/FORMAT.md §5.1) and the FINGERPRINT_SETTINGS codec (§5.2):
// round trips, and every reject rule with the code the spec names.
#include "format/tagged_sections.h"

#include <doctest/doctest.h>

#include <cstring>
#include <vector>

#include "format/checksum.h"
#include "format/endian.h"
#include "format/fingerprint_settings.h"
#include "format/header_region.h"
#include "simdex/error.h"

using namespace simdex::format;
using simdex::errc;

namespace {

errc code_of(auto&& f) {
  try {
    f();
  } catch (const simdex::Error& e) {
    return e.code();
  }
  FAIL("no error");
  return errc::io;
}

// A whole file of one empty table (n = 0) whose tagged sections hold `payloads`, tags as given.
std::vector<uint8_t> file_with(const std::vector<TaggedSection>& sections, uint16_t major = kVersionMajor) {
  HeaderRegion r;
  r.header.version_major = major;
  r.header.block_bytes = 64;
  r.header.id_layout = IdLayout::single;
  r.header.scheme_name = "t";
  r.tables.resize(1);
  for (uint8_t j = 0; j < 64; ++j) r.tables[0].source_bit[j] = j;
  r.tagged.resize(sections.size());
  uint64_t at = r.encoded_bytes();
  for (uint32_t i = 0; i < section_count_for(1); ++i)
    r.sections.push_back(
        {expected_section_kind(i, 1), expected_section_table(i, 1), at, 0, checksum64("", 0)});
  std::vector<uint8_t> payload;
  for (std::size_t i = 0; i < sections.size(); ++i) {
    const auto& s = sections[i];
    r.tagged[i] = {s.tag, s.tag_flags, at + payload.size(), s.bytes.size(),
                   checksum64(s.bytes.data(), s.bytes.size())};
    payload.insert(payload.end(), s.bytes.begin(), s.bytes.end());
  }
  r.header.file_bytes = at + payload.size();
  std::vector<uint8_t> file(r.encoded_bytes());
  r.encode_to(file.data());
  file.insert(file.end(), payload.begin(), payload.end());
  return file;
}

// Rewrites entry i of the directory (1 table: it starts at 128 + 160 + 5·32) and reseals the header.
void patch_entry(std::vector<uint8_t>& file, std::size_t i, const TaggedSectionEntry& e) {
  const uint32_t count = load_le32(file.data() + 88);
  e.encode_to(file.data() + 128 + 160 + 5 * 32 + 32 * i);
  store_le64(file.data() + 120, header_region_checksum(file.data(), header_region_bytes(1, count)));
}

TaggedSectionEntry entry(const std::vector<uint8_t>& file, std::size_t i) {
  return TaggedSectionEntry::decode_from(file.data() + 128 + 160 + 5 * 32 + 32 * i);
}

}  // namespace

TEST_CASE("tagged section entry round-trips") {
  const TaggedSectionEntry e{77, kTagCritical, 1234, 56, 0xfeedface01234567};
  uint8_t buf[TaggedSectionEntry::kEncodedBytes];
  e.encode_to(buf);
  const TaggedSectionEntry d = TaggedSectionEntry::decode_from(buf);
  CHECK(d.tag == 77);
  CHECK(d.critical());
  CHECK(d.offset == 1234);
  CHECK(d.bytes == 56);
  CHECK(d.checksum == e.checksum);
  CHECK(load_le32(buf) == 77);  // little-endian, tag first
  CHECK(describe_tag(1) == "tag 1 (FINGERPRINT_SETTINGS)");
  CHECK(describe_tag(9) == "tag 9");
}

TEST_CASE("a file with tagged sections decodes; a 1.x file has none") {
  const std::vector<uint8_t> a(8, 0xAA), b(16, 0xBB);
  const auto file = file_with({{5, 0, a}, {9, 0, b}, {kFirstPrivateTag, 0, {}}});
  const HeaderRegion r = HeaderRegion::decode_from(file.data(), file.size());
  REQUIRE(r.tagged.size() == 3);
  CHECK(r.header.tagged_section_count == 3);
  CHECK(r.tagged[0].tag == 5);
  CHECK(r.tagged[1].offset == r.tagged[0].offset + 8);
  CHECK(r.tagged[2].bytes == 0);
  CHECK(r.tagged[1].offset + 16 == file.size());

  const auto v1 = file_with({}, 1);
  CHECK(HeaderRegion::decode_from(v1.data(), v1.size()).header.version_major == 1);
  // In 1.x, bytes 88..91 are reserved: a count there is not read as a directory.
  auto v1_count = v1;
  store_le32(v1_count.data() + 88, 1);
  store_le64(v1_count.data() + 120, header_region_checksum(v1_count.data(), header_region_bytes(1)));
  CHECK(code_of([&] { HeaderRegion::decode_from(v1_count.data(), v1_count.size()); }) ==
        errc::reserved_nonzero);
  auto v3 = v1;
  v3[8] = 3;
  CHECK(code_of([&] { HeaderRegion::decode_from(v3.data(), v3.size()); }) == errc::unsupported_version);
}

TEST_CASE("every reject rule of the section directory") {
  const std::vector<uint8_t> eight(8, 1);
  auto rejects = [](std::vector<uint8_t> file) {
    return code_of([&] { HeaderRegion::decode_from(file.data(), file.size()); });
  };
  SUBCASE("tag 0") { CHECK(rejects(file_with({{0, 0, eight}})) == errc::tag_order); }
  SUBCASE("repeated and unsorted tags") {
    CHECK(rejects(file_with({{4, 0, eight}, {4, 0, eight}})) == errc::tag_order);
    CHECK(rejects(file_with({{4, 0, eight}, {3, 0, eight}})) == errc::tag_order);
  }
  SUBCASE("reserved flag bits") { CHECK(rejects(file_with({{4, 2, eight}})) == errc::reserved_nonzero); }
  SUBCASE("unknown critical tag; a known or optional one passes") {
    CHECK(rejects(file_with({{77, kTagCritical, eight}})) == errc::unknown_critical_section);
    const auto optional = file_with({{77, 0, eight}});
    CHECK_NOTHROW(HeaderRegion::decode_from(optional.data(), optional.size()));
  }
  SUBCASE("overlap, gap, size, bounds, end") {
    auto file = file_with({{4, 0, eight}, {6, 0, eight}});
    const TaggedSectionEntry first = entry(file, 0), second = entry(file, 1);
    auto with = [&](std::size_t i, TaggedSectionEntry e) {
      auto f = file;
      patch_entry(f, i, e);
      return rejects(f);
    };
    auto moved = second;
    moved.offset -= 8;  // overlaps the first
    CHECK(with(1, moved) == errc::section_layout);
    moved.offset = first.offset - 8;  // overlaps IDS
    CHECK(with(0, moved) == errc::section_layout);
    auto sized = first;
    sized.bytes = 4;  // not a multiple of 8
    CHECK(with(0, sized) == errc::section_layout);
    sized.bytes = UINT64_MAX - 7;  // past the end, and its end would overflow
    CHECK(with(1, {second.tag, 0, second.offset, sized.bytes, 0}) == errc::section_layout);
    sized.bytes = 0;  // the last section no longer ends at the end of the file
    CHECK(with(1, {second.tag, 0, second.offset, 0, second.checksum}) == errc::section_layout);
    CHECK(with(0, {first.tag, 0, UINT64_MAX, 8, first.checksum}) == errc::section_layout);
  }
  SUBCASE("too many entries (checked before the checksum: it sizes the header region)") {
    auto file = file_with({});
    store_le32(file.data() + 88, kMaxTaggedSections + 1);
    CHECK(rejects(file) == errc::bad_header_field);
  }
}

TEST_CASE("FINGERPRINT_SETTINGS round-trips and rejects what §5.2 forbids") {
  simdex::FingerprintSettings s;
  s.shingle_size = 5;
  s.weighting = simdex::Weighting::binary;
  s.stopwords = {"a", "of", "the"};
  const std::vector<uint8_t> bytes = encode_fingerprint_settings(s);
  CHECK(bytes.size() == 40);  // 16 + (4 + 1) + (4 + 2) + (4 + 3) = 34, padded to a multiple of 8
  CHECK(bytes.size() % 8 == 0);
  CHECK(decode_fingerprint_settings(bytes) == s);
  CHECK(decode_fingerprint_settings(encode_fingerprint_settings({})) == simdex::FingerprintSettings{});
  CHECK(encode_fingerprint_settings({}).size() == 16);

  auto rejects = [](std::vector<uint8_t> b) { return code_of([&] { decode_fingerprint_settings(b); }); };
  auto changed = [&](std::size_t at, uint8_t v) {
    auto b = bytes;
    b[at] = v;
    return rejects(b);
  };
  CHECK(changed(4, 0) == errc::bad_tagged_section);   // shingle 0
  CHECK(changed(4, 17) == errc::bad_tagged_section);  // shingle 17
  CHECK(changed(5, 2) == errc::bad_tagged_section);   // weighting 2
  CHECK(changed(6, 1) == errc::bad_tagged_section);   // reserved
  CHECK(changed(12, 1) == errc::bad_tagged_section);  // reserved
  CHECK(changed(8, 4) == errc::bad_tagged_section);   // one stopword more than there are
  CHECK(changed(8, 255) == errc::bad_tagged_section);
  CHECK(changed(16, 0) == errc::bad_tagged_section);    // an empty stopword
  CHECK(changed(16, 200) == errc::bad_tagged_section);  // runs past the section
  CHECK(changed(39, 1) == errc::bad_tagged_section);    // padding
  CHECK(changed(20, 'p') == errc::bad_tagged_section);  // "p" before "of": not ascending
  CHECK(rejects(std::vector<uint8_t>(bytes.begin(), bytes.begin() + 8)) == errc::bad_tagged_section);
  auto longer = bytes;
  longer.resize(bytes.size() + 8);  // entries end well before the section does
  CHECK(rejects(longer) == errc::bad_tagged_section);
  simdex::FingerprintSettings repeated = s;
  repeated.stopwords = {"of", "of"};
  CHECK(rejects(encode_fingerprint_settings(repeated)) == errc::bad_tagged_section);
  // A version this reader does not know is read (and compares unequal to its own settings).
  auto v2 = bytes;
  v2[0] = 2;
  CHECK(decode_fingerprint_settings(v2).fingerprint_version == 2);
  CHECK(decode_fingerprint_settings(v2) != s);
}
