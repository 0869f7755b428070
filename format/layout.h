// The byte layout of a simdex file, version 2 (spec/FORMAT.md; 1.x files are read too). Each record has a
// fixed encoded size, an encode_to() that writes exactly that many bytes and a decode_from() that reads them;
// the rules of spec §10 are checked in the order the spec gives by HeaderRegion::decode_from
// (format/header_region.h), which calls the checks here.
//
//   [FileHeader 128][TableDescriptor 160 × table_count][SectionEntry 32 × section_count]
//   [TaggedSectionEntry 32 × tagged_section_count][sections...][tagged sections...]
//   sections, contiguous, in this order: for each table t: BLOCKS(t), BLOCK_KEYS(t), BLOCK_RANKS(t);
//   then ID_OFFSETS, IDS; then the tagged sections (format/tagged_sections.h) in ascending tag order.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

namespace simdex::format {

// "\x89SDX\r\n\x1a\n": chosen like PNG's signature. The high-bit first byte catches 7-bit transfers,
// CR LF and LF catch newline translation, ^Z stops `type` on Windows; "SDX" names the format.
inline constexpr std::array<uint8_t, 8> kMagic = {0x89, 'S', 'D', 'X', '\r', '\n', 0x1a, '\n'};
inline constexpr uint16_t kVersionMajor = 2;        // what the writer writes
inline constexpr uint16_t kVersionMinor = 2;        // 2.1: BLOCK_DIRECTORY (spec §5.3); 2.2: its d_t <= 18
inline constexpr uint16_t kOldestVersionMajor = 1;  // the reader reads majors 1 (as 1.0 did) and 2

inline constexpr uint32_t kMaxTables = 4096;
inline constexpr uint32_t kMinBlockBytes = 32;
inline constexpr uint32_t kMaxBlockBytes = 1u << 20;
inline constexpr unsigned kSchemeNameBytes = 32;
inline constexpr uint32_t kNoTable = 0xFFFFFFFFu;  // SectionEntry.table of index-wide sections

enum class IdLayout : uint8_t {
  offsets = 0,  // ID_OFFSETS holds fingerprint_count + 1 offsets into IDS
  single = 1,   // every fingerprint has exactly one id: IDS[rank], ID_OFFSETS is empty
};

struct FileHeader {
  static constexpr std::size_t kEncodedBytes = 128;
  static constexpr std::size_t kChecksumOffset = 120;

  uint16_t version_major = kVersionMajor;
  uint16_t version_minor = kVersionMinor;
  uint64_t file_bytes = 0;
  uint64_t fingerprint_count = 0;  // distinct fingerprints, the entries of every table
  uint64_t id_count = 0;           // (fingerprint, id) pairs
  uint32_t table_count = 0;
  uint32_t section_count = 0;
  uint32_t tagged_section_count = 0;  // E: entries of the section directory (version 2; 0 in 1.x)
  uint32_t block_bytes = 0;           // set by the writer (simdex::BuildOptions::block_bytes)
  uint8_t max_distance = 0;           // k: every fingerprint within k bits of a query is found
  IdLayout id_layout = IdLayout::offsets;
  std::string scheme_name;  // printable ASCII, at most 32 bytes
  uint64_t header_checksum = 0;

  void encode_to(uint8_t* out) const;
  // Checks only the magic and version_major: the other fields are checked by check_fields once the
  // header checksum (over the whole header region, see header_region_checksum) has matched.
  static FileHeader decode_from(const uint8_t* in);
  // The header's own rules that spec §10 checks after the checksum, with `in` the 128 bytes this
  // header was decoded from: reserved bytes zero (reserved_nonzero), then scheme_name, block_bytes,
  // max_distance, id_layout and the counts (bad_header_field). Throws Error.
  void check_fields(const uint8_t* in) const;
};

struct TableDescriptor {
  static constexpr std::size_t kEncodedBytes = 160;

  std::array<uint8_t, 64> source_bit{};   // permuted bit j = original bit source_bit[j]
  std::array<uint8_t, 64> code_length{};  // Huffman code length of h, 0 = h has no code
  uint64_t block_count = 0;
  uint8_t prefix_bits = 0;  // p: a probe reads the entries sharing the query's top p permuted bits

  void encode_to(uint8_t* out) const;
  // Checks the reserved bytes and prefix_bits (the rules of table `table` that need no other record).
  static TableDescriptor decode_from(const uint8_t* in, uint32_t table);
};

enum class SectionKind : uint32_t {
  blocks = 1,
  block_keys = 2,
  block_ranks = 3,
  id_offsets = 4,
  ids = 5,
};
const char* section_kind_name(SectionKind kind);

struct SectionEntry {
  static constexpr std::size_t kEncodedBytes = 32;

  SectionKind kind = SectionKind::blocks;
  uint32_t table = kNoTable;
  uint64_t offset = 0;
  uint64_t bytes = 0;
  uint64_t checksum = 0;  // XXH3-64 of the section's bytes

  void encode_to(uint8_t* out) const;
  static SectionEntry decode_from(const uint8_t* in);
};

// The field rules a writer keeps and a reader checks (spec §3), written once: "" when `value`
// keeps the rule, else why not.
std::string check_table_count(uint32_t table_count);   // 1 <= T <= kMaxTables
std::string check_block_bytes(uint32_t block_bytes);   // a multiple of 8 in [kMinBlockBytes, kMaxBlockBytes]
std::string check_scheme_name(std::string_view name);  // at most 32 printable ASCII bytes

inline constexpr uint32_t section_count_for(uint32_t table_count) { return 3 * table_count + 2; }
// Bytes of header + table descriptors + section table; the first section starts here.
inline constexpr uint64_t header_region_bytes(uint32_t table_count, uint32_t tagged_section_count = 0) {
  return FileHeader::kEncodedBytes + uint64_t{table_count} * TableDescriptor::kEncodedBytes +
         (3 * uint64_t{table_count} + 2 + tagged_section_count) *
             SectionEntry::kEncodedBytes;  // 64-bit: any u32 counts; a TaggedSectionEntry is 32 bytes too
}

// The kind and table the i-th section must have.
SectionKind expected_section_kind(uint32_t index, uint32_t table_count);
uint32_t expected_section_table(uint32_t index, uint32_t table_count);

// XXH3-64 over the header region with the 8 checksum bytes left out.
uint64_t header_region_checksum(const uint8_t* region, uint64_t region_bytes);

// Block layout: [block_checksum u32][entry_count u32][first_entry u64][bit stream ...padding].
inline constexpr std::size_t kBlockHeaderBytes = 16;
inline constexpr std::size_t kBlockChecksumBytes = 4;

}  // namespace simdex::format
