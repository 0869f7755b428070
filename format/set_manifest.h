// The bytes of an index set (spec/SET.md): the manifest naming member index files and tombstone
// files, and the tombstone files themselves. Bytes only: opening the named files is set/'s job.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace simdex::format {

// Chosen like the index magic (format/layout.h): "SDS" names a set, "SDT" a tombstone file.
inline constexpr std::array<uint8_t, 8> kSetMagic = {0x89, 'S', 'D', 'S', '\r', '\n', 0x1a, '\n'};
inline constexpr std::array<uint8_t, 8> kTombstoneMagic = {0x89, 'S', 'D', 'T', '\r', '\n', 0x1a, '\n'};
inline constexpr uint16_t kSetVersionMajor = 1;
inline constexpr uint16_t kSetVersionMinor = 0;
inline constexpr uint32_t kMaxSetEntries = 65536;
inline constexpr std::size_t kSetHeaderBytes = 64;
inline constexpr std::size_t kSetEntryBytes = 48;  // before the name
inline constexpr std::size_t kMaxNameBytes = 255;
inline constexpr std::size_t kTombstoneHeaderBytes = 32;
// The largest manifest rules 7 and 8 allow: 65536 members and 65536 tombstones, each an entry and a
// 255-byte name padded to 256 (about 40 MB). A reader reads no more of a larger file than this.
inline constexpr uint64_t kMaxManifestBytes =
    kSetHeaderBytes + 2 * uint64_t{kMaxSetEntries} * (kSetEntryBytes + 256);

// One member or tombstone of the manifest (spec/SET.md §2.2).
struct SetEntry {
  uint64_t generation = 0;
  uint64_t file_bytes = 0;
  uint64_t checksum = 0;  // member: its header_checksum; tombstone: XXH3-64 of the file
  uint64_t count = 0;     // member: fingerprint_count; tombstone: id_count
  uint64_t id_count = 0;  // member only (0 for a tombstone)
  std::string name;       // relative to the manifest's directory
  bool operator==(const SetEntry&) const = default;
};

struct SetManifest {
  uint16_t version_major = kSetVersionMajor;
  uint16_t version_minor = kSetVersionMinor;
  uint64_t generation = 0;
  uint32_t block_bytes = 0;
  uint8_t max_distance = 0;
  std::vector<SetEntry> members;     // ascending generation
  std::vector<SetEntry> tombstones;  // ascending generation

  std::vector<uint8_t> encode() const;
  uint64_t checksum() const;  // the manifest_checksum of encode()
  // Checks rules 1 to 10 of spec/SET.md §5 in order; throws Error named by the first broken one.
  static SetManifest decode(const uint8_t* data, std::size_t size);
  // The same for a file of `size` > kMaxManifestBytes bytes, of which `head` holds the first 64:
  // rules 1 to 4 on its header, else rule 8 (its entries cannot fill it), as spec/SET.md §5 allows
  // without reading the file for rule 5. Always throws.
  [[noreturn]] static void reject_oversized(const uint8_t* head, uint64_t size);
};

// True when the bytes start with the set magic (how Index::open tells a set from an index file).
bool has_set_magic(const uint8_t* data, std::size_t size);
// Whether `path` is a regular file whose first 8 bytes are the set magic (a FIFO is not opened
// to block, a missing file is false).
bool starts_with_set_magic(const std::string& path);

// A file name as this implementation's writers name a set's entries (spec/SET.md §1):
// SET_NAME-GGGGGGGGGGGGGGGG.sdx (a member) or .sdt (a tombstone), G the generation in 16 lower-case
// hex digits.
struct EntryFileName {
  std::string set_name;  // the manifest's file name
  uint64_t generation = 0;
  bool member = true;  // .sdx; else .sdt
};
std::optional<EntryFileName> parse_entry_file_name(std::string_view name);

// Empty when `name` is a legal entry name (spec/SET.md §2.2), else why it is not.
std::string check_entry_name(std::string_view name);

struct Tombstone {
  uint64_t generation = 0;
  std::vector<uint64_t> ids;  // strictly ascending

  std::vector<uint8_t> encode() const;
  // Checks rule 14 of spec/SET.md §5 against the manifest's entry; throws Error(bad_tombstone).
  static Tombstone decode(const uint8_t* data, std::size_t size, const SetEntry& entry);
  // Its first check alone, for a reader that knows the file's size before it reads it: throws
  // Error(bad_tombstone) when `size` is not the entry's.
  static void check_size(uint64_t size, const SetEntry& entry);
};

}  // namespace simdex::format
