// The section directory of format 2 (spec/FORMAT.md §5.1): tagged sections after IDS, each named by
// a tag, sorted by tag, with a CRITICAL flag that tells a reader which unknown tags it must refuse.
// Bytes only: the entry codec and the directory's open rules. The directory itself sits in the
// header region (format/header_region.h encodes and decodes it with the rest).
//
// Adding a section (a minor version, spec §12, when a reader may ignore it):
//   1. spec/FORMAT.md: a row in §5.1's table of assigned tags and a subsection for its bytes;
//   2. here: a Tag value and a row of kKnownTags (its name; critical only with a new major version);
//   3. write side: writer::write_index takes the section's bytes in IndexContents::tagged, or a table-
//      derived section is made by writer/index_writer.cpp (FileWriter) before the header is written;
//   4. read side: reader::IndexFile::tagged_section(tag) gives its bytes, bounds-checked at open;
//      check_tagged_checksum() before trusting them, then decode with bounds checks of your own;
//   5. the reference reader (spec/reference/simdex_ref.py) and golden files (tests/conformance).
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace simdex::format {

inline constexpr uint32_t kMaxTaggedSections = 1024;
inline constexpr uint32_t kTagCritical = 1;                // tag_flags bit 0
inline constexpr uint32_t kFirstPrivateTag = 0x80000000u;  // tags from here on are never assigned

// n rounded up to a multiple of 8: every section's size is one (spec §2), so each pads to it.
inline constexpr uint64_t pad8(uint64_t n) { return (n + 7) / 8 * 8; }

// The tags spec §5.1 assigns.
enum class Tag : uint32_t {
  fingerprint_settings = 1,  // §5.2, format/fingerprint_settings.h
  block_directory = 2,       // §5.3, format/block_directory.h
};

// The spec's name of an assigned tag ("FINGERPRINT_SETTINGS"), or nullopt for a tag this reader
// does not know.
std::optional<std::string> tag_name(uint32_t tag);
// "tag 1 (FINGERPRINT_SETTINGS)" / "tag 77", for messages.
std::string describe_tag(uint32_t tag);

struct TaggedSectionEntry {
  static constexpr std::size_t kEncodedBytes = 32;

  uint32_t tag = 0;
  uint32_t tag_flags = 0;
  uint64_t offset = 0;
  uint64_t bytes = 0;
  uint64_t checksum = 0;  // XXH3-64 of the section's bytes

  bool critical() const { return (tag_flags & kTagCritical) != 0; }
  void encode_to(uint8_t* out) const;
  static TaggedSectionEntry decode_from(const uint8_t* in);
};

// A tagged section to write: the writer places it and computes its checksum.
struct TaggedSection {
  uint32_t tag = 0;
  uint32_t tag_flags = 0;
  std::vector<uint8_t> bytes;  // a multiple of 8 bytes (the section's own encoding pads)
};

// The directory's open rules of spec §10, in the spec's order, for entries decoded from a file of
// `file_size` bytes whose IDS section ends at `first_offset`: per entry tag_order, reserved_nonzero
// (tag_flags), section_layout (place, size, bounds) and unknown_critical_section; then the last
// section's end. Throws Error with the rule's code. Overflow-safe whatever the entries hold.
void check_section_directory(std::span<const TaggedSectionEntry> entries, uint64_t first_offset,
                             uint64_t file_size);

// Error(bad_tagged_section) unless `bytes` hash to the entry's checksum (a section checked at open).
void check_tagged_checksum(const TaggedSectionEntry& entry, std::span<const uint8_t> bytes);

}  // namespace simdex::format
