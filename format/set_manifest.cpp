#include "format/set_manifest.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <set>

#include "format/checksum.h"
#include "format/endian.h"
#include "format/layout.h"
#include "simdex/error.h"

namespace simdex::format {

namespace {

std::size_t padded(std::size_t n) { return (n + 7) / 8 * 8; }

uint64_t manifest_checksum(const uint8_t* data, std::size_t size) {
  Checksum64 c;
  c.update(data, 56);
  c.update(data + kSetHeaderBytes, size - kSetHeaderBytes);
  return c.digest();
}

void encode_entry(std::vector<uint8_t>& out, const SetEntry& e) {
  const std::size_t at = out.size();
  out.resize(at + kSetEntryBytes + padded(e.name.size()), 0);
  uint8_t* p = out.data() + at;
  store_le64(p, e.generation);
  store_le64(p + 8, e.file_bytes);
  store_le64(p + 16, e.checksum);
  store_le64(p + 24, e.count);
  store_le64(p + 32, e.id_count);
  store_le16(p + 40, static_cast<uint16_t>(e.name.size()));
  std::memcpy(p + kSetEntryBytes, e.name.data(), e.name.size());
}

bool all_zero(const uint8_t* p, std::size_t n) {
  return std::all_of(p, p + n, [](uint8_t b) { return b == 0; });
}

[[noreturn]] void fail(errc code, const std::string& what) { throw Error(code, "set manifest: " + what); }

}  // namespace

bool starts_with_set_magic(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);  // a FIFO must not block the open
  if (fd < 0) return false;
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {  // the index reader refuses it with its message
    ::close(fd);
    return false;
  }
  uint8_t head[8];
  const ssize_t r = ::pread(fd, head, sizeof head, 0);
  ::close(fd);
  return r == static_cast<ssize_t>(sizeof head) && has_set_magic(head, sizeof head);
}

std::optional<EntryFileName> parse_entry_file_name(std::string_view name) {
  constexpr std::size_t kTail = 1 + 16 + 4;  // "-" G ".sdx"
  if (name.size() <= kTail) return std::nullopt;
  const std::string_view tail = name.substr(name.size() - kTail);
  const bool member = tail.ends_with(".sdx");
  if (tail[0] != '-' || !(member || tail.ends_with(".sdt"))) return std::nullopt;
  const std::string_view hex = tail.substr(1, 16);
  if (hex.find_first_not_of("0123456789abcdef") != std::string_view::npos) return std::nullopt;
  EntryFileName e;
  e.set_name = std::string(name.substr(0, name.size() - kTail));
  e.member = member;
  for (const char c : hex)
    e.generation = e.generation << 4 | static_cast<uint64_t>(c <= '9' ? c - '0' : c - 'a' + 10);
  return e;
}

bool has_set_magic(const uint8_t* data, std::size_t size) {
  return size >= kSetMagic.size() && std::memcmp(data, kSetMagic.data(), kSetMagic.size()) == 0;
}

std::string check_entry_name(std::string_view name) {
  if (name.empty() || name.size() > kMaxNameBytes)
    return "a name must have 1 to " + std::to_string(kMaxNameBytes) + " bytes";
  std::size_t start = 0;
  while (true) {
    const std::size_t end = std::min(name.find('/', start), name.size());
    const std::string_view part = name.substr(start, end - start);
    if (part.empty()) return "empty path component (absolute path or '//')";
    if (part.front() == '.') return "a path component starts with '.' ('.', '..' or a hidden file)";
    for (const char c : part)
      if (!(std::isalnum(static_cast<unsigned char>(c)) && static_cast<unsigned char>(c) < 0x80) &&
          c != '.' && c != '_' && c != '-')
        return "byte " + std::to_string(static_cast<unsigned char>(c)) + " is not one of A-Z a-z 0-9 . _ -";
    if (end == name.size()) return {};
    start = end + 1;
  }
}

std::vector<uint8_t> SetManifest::encode() const {
  std::vector<uint8_t> out(kSetHeaderBytes, 0);
  for (const auto& e : members) encode_entry(out, e);
  for (const auto& e : tombstones) encode_entry(out, e);
  uint8_t* h = out.data();
  std::memcpy(h, kSetMagic.data(), kSetMagic.size());
  store_le16(h + 8, version_major);
  store_le16(h + 10, version_minor);
  store_le64(h + 16, out.size());
  store_le64(h + 24, generation);
  store_le32(h + 32, static_cast<uint32_t>(members.size()));
  store_le32(h + 36, static_cast<uint32_t>(tombstones.size()));
  store_le32(h + 40, block_bytes);
  h[44] = max_distance;
  store_le64(h + 56, manifest_checksum(out.data(), out.size()));
  return out;
}

uint64_t SetManifest::checksum() const { return load_le64(encode().data() + 56); }

namespace {
// Rules 1 to 4 of spec/SET.md §5: what the file of `size` bytes must be before its checksum is
// read (`data` holds its first 64 bytes, or all of a shorter file).
void check_identity(const uint8_t* data, uint64_t size) {
  if (size < kSetHeaderBytes)
    fail(errc::file_too_small, std::to_string(size) + " bytes, a manifest has at least 64");
  if (!has_set_magic(data, kSetHeaderBytes)) fail(errc::bad_magic, "not a simdex set manifest (bad magic)");
  const uint16_t major = load_le16(data + 8), minor = load_le16(data + 10);
  if (major != kSetVersionMajor)
    fail(errc::unsupported_version,
         "version " + std::to_string(major) + "." + std::to_string(minor) + ", this reader reads 1.x");
  const uint64_t manifest_bytes = load_le64(data + 16);
  if (manifest_bytes != size)
    fail(errc::file_size_mismatch, "manifest_bytes is " + std::to_string(manifest_bytes) + ", the file has " +
                                       std::to_string(size) + " (truncated or extended)");
}
}  // namespace

void SetManifest::reject_oversized(const uint8_t* head, uint64_t size) {
  check_identity(head, size);
  fail(errc::set_layout, std::to_string(size) + " bytes, more than any manifest's entries fill (at most " +
                             std::to_string(kMaxManifestBytes) + ")");
}

SetManifest SetManifest::decode(const uint8_t* data, std::size_t size) {
  check_identity(data, size);
  if (manifest_checksum(data, size) != load_le64(data + 56))
    fail(errc::manifest_checksum, "manifest_checksum does not match");
  SetManifest m;
  m.version_major = load_le16(data + 8);
  m.version_minor = load_le16(data + 10);
  m.generation = load_le64(data + 24);
  const uint32_t member_count = load_le32(data + 32), tombstone_count = load_le32(data + 36);
  m.block_bytes = load_le32(data + 40);
  m.max_distance = data[44];
  if (load_le32(data + 12) != 0 || !all_zero(data + 45, 11))
    fail(errc::reserved_nonzero, "flags or reserved header bytes are not 0");
  if (m.generation == 0) fail(errc::bad_header_field, "generation is 0");
  if (member_count < 1 || member_count > kMaxSetEntries)
    fail(errc::bad_header_field, "member_count " + std::to_string(member_count) + " is not in [1, 65536]");
  if (tombstone_count > kMaxSetEntries)
    fail(errc::bad_header_field, "tombstone_count " + std::to_string(tombstone_count) + " is above 65536");
  if (const std::string why = check_block_bytes(m.block_bytes); !why.empty())
    fail(errc::bad_header_field, why);
  if (m.max_distance > 64)
    fail(errc::bad_header_field, "max_distance " + std::to_string(m.max_distance) + " > 64");
  // The entries, bounds-checked (every quantity below is at most size, so nothing overflows).
  struct Raw {
    std::size_t at;
    std::size_t name_bytes;
  };
  std::vector<Raw> raw;
  std::size_t at = kSetHeaderBytes;
  for (uint64_t i = 0; i < uint64_t{member_count} + tombstone_count; ++i) {
    if (size - at < kSetEntryBytes)
      fail(errc::set_layout, "entry " + std::to_string(i) + " runs past the end of the manifest");
    const std::size_t name_bytes = load_le16(data + at + 40);
    if (size - at - kSetEntryBytes < padded(name_bytes))
      fail(errc::set_layout, "the name of entry " + std::to_string(i) + " runs past the end of the manifest");
    raw.push_back({at, name_bytes});
    at += kSetEntryBytes + padded(name_bytes);
  }
  if (at != size) fail(errc::set_layout, std::to_string(size - at) + " bytes follow the last entry");
  for (std::size_t i = 0; i < raw.size(); ++i) {
    const uint8_t* e = data + raw[i].at;
    const bool tombstone = i >= member_count;
    if (!all_zero(e + 42, 6) ||
        !all_zero(e + kSetEntryBytes + raw[i].name_bytes, padded(raw[i].name_bytes) - raw[i].name_bytes) ||
        (tombstone && load_le64(e + 32) != 0))
      fail(errc::reserved_nonzero, "entry " + std::to_string(i) + ": reserved bytes or padding are not 0");
  }

  std::set<std::string_view> names;
  for (std::size_t i = 0; i < raw.size(); ++i) {
    const uint8_t* e = data + raw[i].at;
    SetEntry entry{
        load_le64(e),      load_le64(e + 8),
        load_le64(e + 16), load_le64(e + 24),
        load_le64(e + 32), std::string(reinterpret_cast<const char*>(e + kSetEntryBytes), raw[i].name_bytes)};
    if (const std::string why = check_entry_name(entry.name); !why.empty())
      fail(errc::bad_member_name, "entry " + std::to_string(i) + ": " + why);
    (i < member_count ? m.members : m.tombstones).push_back(std::move(entry));
  }
  for (const auto* list : {&m.members, &m.tombstones})
    for (const auto& e : *list)
      if (!names.insert(e.name).second) fail(errc::bad_member_name, "the name '" + e.name + "' occurs twice");
  for (const auto* list : {&m.members, &m.tombstones}) {
    const char* kind = list == &m.members ? "member" : "tombstone";
    for (std::size_t i = 0; i < list->size(); ++i) {
      const uint64_t g = (*list)[i].generation;
      if (g == 0 || g > m.generation)
        fail(errc::entry_order, std::string(kind) + " '" + (*list)[i].name + "' has generation " +
                                    std::to_string(g) + ", not in [1, " + std::to_string(m.generation) + "]");
      if (i > 0 && g <= (*list)[i - 1].generation)
        fail(errc::entry_order,
             std::string(kind) + " generations are not strictly ascending at '" + (*list)[i].name + "'");
    }
  }
  return m;
}

std::vector<uint8_t> Tombstone::encode() const {
  std::vector<uint8_t> out(kTombstoneHeaderBytes + 8 * ids.size(), 0);
  std::memcpy(out.data(), kTombstoneMagic.data(), kTombstoneMagic.size());
  store_le16(out.data() + 8, kSetVersionMajor);
  store_le16(out.data() + 10, kSetVersionMinor);
  store_le64(out.data() + 16, generation);
  store_le64(out.data() + 24, ids.size());
  store_le64s(out.data() + kTombstoneHeaderBytes, ids.data(), ids.size());
  return out;
}

namespace {
Error bad_tombstone(const SetEntry& entry, const std::string& what) {
  return Error(errc::bad_tombstone, "tombstone '" + entry.name + "': " + what);
}
}  // namespace

void Tombstone::check_size(uint64_t size, const SetEntry& entry) {
  if (size != entry.file_bytes)
    throw bad_tombstone(
        entry, std::to_string(size) + " bytes, the manifest says " + std::to_string(entry.file_bytes));
  // A tombstone of n ids has 32 + 8n bytes: an entry at odds with itself is refused unread.
  if (entry.count > (UINT64_MAX - kTombstoneHeaderBytes) / 8 ||
      size != kTombstoneHeaderBytes + 8 * entry.count)
    throw bad_tombstone(entry, std::to_string(size) + " bytes, not those of the " +
                                   std::to_string(entry.count) +
                                   " ids its manifest entry counts (32 + 8 bytes an id)");
}

Tombstone Tombstone::decode(const uint8_t* data, std::size_t size, const SetEntry& entry) {
  auto bad = [&](const std::string& what) { return bad_tombstone(entry, what); };
  check_size(size, entry);
  if (checksum64(data, size) != entry.checksum) throw bad("XXH3-64 does not match the manifest");
  if (size < kTombstoneHeaderBytes || std::memcmp(data, kTombstoneMagic.data(), kTombstoneMagic.size()) != 0)
    throw bad("not a tombstone file (bad magic)");
  if (load_le16(data + 8) != kSetVersionMajor || load_le32(data + 12) != 0)
    throw bad("unsupported version or nonzero flags");
  Tombstone t;
  t.generation = load_le64(data + 16);
  const uint64_t count = load_le64(data + 24);
  if (t.generation != entry.generation) throw bad("generation differs from the manifest's");
  if (count != entry.count || count == 0 || (size - kTombstoneHeaderBytes) / 8 != count ||
      (size - kTombstoneHeaderBytes) % 8 != 0)
    throw bad("id_count differs from the manifest's or from the file's size, or is 0");
  t.ids.resize(count);
  for (uint64_t i = 0; i < count; ++i) {
    t.ids[i] = load_le64(data + kTombstoneHeaderBytes + 8 * i);
    if (i > 0 && t.ids[i] <= t.ids[i - 1]) throw bad("ids are not strictly ascending");
  }
  return t;
}

}  // namespace simdex::format
