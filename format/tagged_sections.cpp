#include "format/tagged_sections.h"

#include "format/checksum.h"
#include "format/endian.h"
#include "simdex/error.h"

namespace simdex::format {

namespace {

struct KnownTag {
  Tag tag;
  const char* name;
};
// spec §5.1, "Assigned tags". A reader refuses a CRITICAL tag that is not here.
constexpr KnownTag kKnownTags[] = {
    {Tag::fingerprint_settings, "FINGERPRINT_SETTINGS"},
    {Tag::block_directory, "BLOCK_DIRECTORY"},
};

}  // namespace

std::optional<std::string> tag_name(uint32_t tag) {
  for (const KnownTag& k : kKnownTags)
    if (static_cast<uint32_t>(k.tag) == tag) return std::string(k.name);
  return std::nullopt;
}

std::string describe_tag(uint32_t tag) {
  const std::optional<std::string> name = tag_name(tag);
  return "tag " + std::to_string(tag) + (name ? " (" + *name + ")" : "");
}

void TaggedSectionEntry::encode_to(uint8_t* out) const {
  store_le32(out, tag);
  store_le32(out + 4, tag_flags);
  store_le64(out + 8, offset);
  store_le64(out + 16, bytes);
  store_le64(out + 24, checksum);
}

TaggedSectionEntry TaggedSectionEntry::decode_from(const uint8_t* in) {
  return {load_le32(in), load_le32(in + 4), load_le64(in + 8), load_le64(in + 16), load_le64(in + 24)};
}

void check_section_directory(std::span<const TaggedSectionEntry> entries, uint64_t first_offset,
                             uint64_t file_size) {
  uint64_t expected_offset = first_offset;
  for (std::size_t i = 0; i < entries.size(); ++i) {
    const TaggedSectionEntry& e = entries[i];
    const std::string name = "tagged section " + std::to_string(i) + " (" + describe_tag(e.tag) + "): ";
    if (e.tag == 0) throw Error(errc::tag_order, name + "tag 0 is reserved");
    if (i > 0 && e.tag <= entries[i - 1].tag)
      throw Error(errc::tag_order,
                  name + (e.tag == entries[i - 1].tag
                              ? "repeats the previous tag"
                              : "is below the previous tag " + std::to_string(entries[i - 1].tag)));
    if ((e.tag_flags & ~kTagCritical) != 0)
      throw Error(errc::reserved_nonzero, name + "tag_flags has reserved bits set");
    if (e.offset != expected_offset)
      throw Error(errc::section_layout, name + "starts at " + std::to_string(e.offset) + ", expected " +
                                            std::to_string(expected_offset) + " (where the previous ends)");
    if (e.bytes % 8 != 0)
      throw Error(errc::section_layout, name + std::to_string(e.bytes) + " bytes, not a multiple of 8");
    if (e.offset > file_size || e.bytes > file_size - e.offset)
      throw Error(errc::section_layout, name + "runs past the end of the file");
    if (e.critical() && !tag_name(e.tag))
      throw Error(errc::unknown_critical_section,
                  name + "is CRITICAL and this reader does not know its tag (a newer format major version)");
    expected_offset = e.offset + e.bytes;
  }
  if (!entries.empty() && expected_offset != file_size)
    throw Error(errc::section_layout, "the tagged sections end at " + std::to_string(expected_offset) +
                                          ", the file at " + std::to_string(file_size));
}

void check_tagged_checksum(const TaggedSectionEntry& entry, std::span<const uint8_t> bytes) {
  if (checksum64(bytes.data(), bytes.size()) != entry.checksum)
    throw Error(errc::bad_tagged_section, describe_tag(entry.tag) + ": checksum mismatch");
}

}  // namespace simdex::format
