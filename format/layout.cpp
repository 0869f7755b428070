#include "format/layout.h"

#include <algorithm>
#include <cstring>

#include "format/checksum.h"
#include "format/endian.h"
#include "simdex/error.h"

namespace simdex::format {

namespace {
bool all_zero(const uint8_t* p, std::size_t n) {
  return std::all_of(p, p + n, [](uint8_t b) { return b == 0; });
}
}  // namespace

void FileHeader::encode_to(uint8_t* out) const {
  std::memset(out, 0, kEncodedBytes);
  std::memcpy(out, kMagic.data(), kMagic.size());
  store_le16(out + 8, version_major);
  store_le16(out + 10, version_minor);
  // 12: flags, reserved
  store_le64(out + 16, file_bytes);
  store_le64(out + 24, fingerprint_count);
  store_le64(out + 32, id_count);
  store_le32(out + 40, table_count);
  store_le32(out + 44, section_count);
  store_le32(out + 48, block_bytes);
  out[52] = max_distance;
  out[53] = static_cast<uint8_t>(id_layout);
  // 54..55 reserved
  std::memcpy(out + 56, scheme_name.data(), std::min<std::size_t>(scheme_name.size(), kSchemeNameBytes));
  if (version_major >= 2) store_le32(out + 88, tagged_section_count);
  // 92..119 reserved (88..119 in 1.x)
  store_le64(out + kChecksumOffset, header_checksum);
}

FileHeader FileHeader::decode_from(const uint8_t* in) {
  if (std::memcmp(in, kMagic.data(), kMagic.size()) != 0)
    throw Error(errc::bad_magic, "not a simdex index (the first 8 bytes are not the simdex magic)");
  FileHeader h;
  h.version_major = load_le16(in + 8);
  h.version_minor = load_le16(in + 10);
  if (h.version_major < kOldestVersionMajor || h.version_major > kVersionMajor)
    throw Error(errc::unsupported_version,
                "format version " + std::to_string(h.version_major) + "." + std::to_string(h.version_minor) +
                    "; this reader reads major versions " + std::to_string(kOldestVersionMajor) + " and " +
                    std::to_string(kVersionMajor));
  h.file_bytes = load_le64(in + 16);
  h.fingerprint_count = load_le64(in + 24);
  h.id_count = load_le64(in + 32);
  h.table_count = load_le32(in + 40);
  h.section_count = load_le32(in + 44);
  if (h.version_major >= 2) h.tagged_section_count = load_le32(in + 88);  // 1.x: reserved, E = 0
  h.block_bytes = load_le32(in + 48);
  h.max_distance = in[52];
  h.id_layout = static_cast<IdLayout>(in[53]);
  const char* name = reinterpret_cast<const char*>(in + 56);
  h.scheme_name.assign(name, strnlen(name, kSchemeNameBytes));
  h.header_checksum = load_le64(in + kChecksumOffset);
  return h;
}

void FileHeader::check_fields(const uint8_t* in) const {
  if (!all_zero(in + 12, 4)) throw Error(errc::reserved_nonzero, "header flags (bytes 12..15) not zero");
  if (!all_zero(in + 54, 2)) throw Error(errc::reserved_nonzero, "header bytes 54..55 not zero");
  const unsigned reserved_from = version_major >= 2 ? 92 : 88;
  if (!all_zero(in + reserved_from, 120 - reserved_from))
    throw Error(errc::reserved_nonzero, "header bytes " + std::to_string(reserved_from) + "..119 not zero");
  if (!all_zero(in + 56 + scheme_name.size(), kSchemeNameBytes - scheme_name.size()))
    throw Error(errc::reserved_nonzero, "scheme_name: bytes after its first zero byte are not zero");
  auto check = [](const std::string& why) {
    if (!why.empty()) throw Error(errc::bad_header_field, why);
  };
  check(check_scheme_name(scheme_name));
  check(check_block_bytes(block_bytes));
  if (max_distance > 64) check("max_distance " + std::to_string(max_distance) + " > 64");
  if (id_layout != IdLayout::offsets && id_layout != IdLayout::single)
    check("id_layout " + std::to_string(static_cast<unsigned>(id_layout)) + " is neither 0 nor 1");
  if (id_count < fingerprint_count)
    check("id_count " + std::to_string(id_count) + " < fingerprint_count " +
          std::to_string(fingerprint_count));
  if (fingerprint_count == 0 && id_count != 0) check("ids without fingerprints");
  if (id_layout == IdLayout::single && id_count != fingerprint_count)
    check("id_layout 1 (one id each) but id_count != fingerprint_count");
}

std::string check_table_count(uint32_t t) {
  if (t >= 1 && t <= kMaxTables) return "";
  return "table_count " + std::to_string(t) + " is not in [1, " + std::to_string(kMaxTables) + "]";
}

std::string check_block_bytes(uint32_t b) {
  if (b >= kMinBlockBytes && b <= kMaxBlockBytes && b % 8 == 0) return "";
  return "block_bytes " + std::to_string(b) + " is not a multiple of 8 in [" +
         std::to_string(kMinBlockBytes) + ", " + std::to_string(kMaxBlockBytes) + "]";
}

std::string check_scheme_name(std::string_view name) {
  if (name.size() > kSchemeNameBytes)
    return "scheme_name '" + std::string(name) + "' is longer than 32 bytes";
  for (char c : name)
    if (c < 0x20 || c > 0x7e) return "scheme_name holds a byte that is not printable ASCII";
  return "";
}

void TableDescriptor::encode_to(uint8_t* out) const {
  std::memset(out, 0, kEncodedBytes);
  std::memcpy(out, source_bit.data(), 64);
  std::memcpy(out + 64, code_length.data(), 64);
  store_le64(out + 128, block_count);
  out[136] = prefix_bits;
}

TableDescriptor TableDescriptor::decode_from(const uint8_t* in, uint32_t table) {
  TableDescriptor d;
  std::memcpy(d.source_bit.data(), in, 64);
  std::memcpy(d.code_length.data(), in + 64, 64);
  d.block_count = load_le64(in + 128);
  d.prefix_bits = in[136];
  if (!all_zero(in + 137, kEncodedBytes - 137))
    throw Error(errc::reserved_nonzero,
                "table " + std::to_string(table) + ": reserved bytes 137..159 not zero");
  if (d.prefix_bits > 64)
    throw Error(errc::bad_header_field, "table " + std::to_string(table) + ": prefix_bits " +
                                            std::to_string(d.prefix_bits) + " > 64");
  return d;
}

const char* section_kind_name(SectionKind kind) {
  switch (kind) {
    case SectionKind::blocks:
      return "BLOCKS";
    case SectionKind::block_keys:
      return "BLOCK_KEYS";
    case SectionKind::block_ranks:
      return "BLOCK_RANKS";
    case SectionKind::id_offsets:
      return "ID_OFFSETS";
    case SectionKind::ids:
      return "IDS";
  }
  return "UNKNOWN";
}

void SectionEntry::encode_to(uint8_t* out) const {
  store_le32(out, static_cast<uint32_t>(kind));
  store_le32(out + 4, table);
  store_le64(out + 8, offset);
  store_le64(out + 16, bytes);
  store_le64(out + 24, checksum);
}

SectionEntry SectionEntry::decode_from(const uint8_t* in) {
  SectionEntry e;
  e.kind = static_cast<SectionKind>(load_le32(in));
  e.table = load_le32(in + 4);
  e.offset = load_le64(in + 8);
  e.bytes = load_le64(in + 16);
  e.checksum = load_le64(in + 24);
  return e;
}

SectionKind expected_section_kind(uint32_t index, uint32_t table_count) {
  if (index < 3 * table_count) return static_cast<SectionKind>(1 + index % 3);
  return index == 3 * table_count ? SectionKind::id_offsets : SectionKind::ids;
}

uint32_t expected_section_table(uint32_t index, uint32_t table_count) {
  return index < 3 * table_count ? index / 3 : kNoTable;
}

uint64_t header_region_checksum(const uint8_t* region, uint64_t region_bytes) {
  Checksum64 h;
  h.update(region, FileHeader::kChecksumOffset);
  h.update(region + FileHeader::kEncodedBytes, region_bytes - FileHeader::kEncodedBytes);
  return h.digest();
}

}  // namespace simdex::format
