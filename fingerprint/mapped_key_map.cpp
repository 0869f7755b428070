// MappedKeyMap: a key map (spec/KEYS.md) looked up in place, by interpolation search over its bytes.
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <mutex>

#include "fingerprint/key_map_lines.h"
#include "simdex/error.h"
#include "simdex/keys.h"

namespace simdex {

namespace {
// Interpolation probes before a lookup turns to bisection. Ids spread evenly converge in about
// log2(log2(lines)) probes (5 for a billion lines); ids bunched up (a hostile or odd map) would
// creep a line at a time, and bisection then bounds the lookup by log2 of the file's size.
constexpr int kInterpolationProbes = 12;
}  // namespace

struct MappedKeyMap::Mapping {
  std::string path;
  int fd = -1;
  const char* data = nullptr;
  std::size_t size = 0;
  bool legacy = false;                      // simdex 0.1's paths.tsv: no header, keys as they are
  std::size_t begin = 0, end = 0;           // the entries' lines: [begin, end), each ending in LF
  std::uint64_t first_id = 0, last_id = 0;  // of the first and the last entry (when there is one)
  mutable std::once_flag counted;
  mutable std::size_t entries = 0;  // size(), once counted

  ~Mapping() {
    if (data) ::munmap(const_cast<char*>(data), size);
    if (fd >= 0) ::close(fd);
  }

  [[noreturn]] void fail(std::size_t at, const std::string& what) const {
    throw Error(errc::input, "key map '" + path + "': the line at byte " + std::to_string(at) + ": " + what +
                                 " (spec/KEYS.md)");
  }

  // The id of the line that starts at `start` and ends (LF) at `eol`, and its key as written; a
  // malformed id throws. (A probe needs the id only: a key is checked and unescaped when returned.)
  std::uint64_t id_of(std::size_t start, std::size_t eol, std::string_view& key) const {
    std::uint64_t id = 0;
    if (const char* wrong = parse_key_map_id({data + start, eol - start}, id, key)) fail(start, wrong);
    return id;
  }
};

MappedKeyMap::MappedKeyMap(const std::string& path) {
  auto m = std::make_shared<Mapping>();
  m->path = path;
  m->fd = open_key_map_file(path);
  struct stat st {};
  if (::fstat(m->fd, &st) != 0)
    throw Error(errc::io, "cannot stat key map '" + path + "': " + std::strerror(errno));
  m->size = static_cast<std::size_t>(st.st_size);
  if (m->size > 0) {
    void* p = ::mmap(nullptr, m->size, PROT_READ, MAP_SHARED, m->fd, 0);
    if (p == MAP_FAILED) throw Error(errc::io, "cannot map key map '" + path + "': " + std::strerror(errno));
    m->data = static_cast<const char*>(p);
    // A lookup reads a line here and a line there: no read-around of pages it does not need.
    ::madvise(p, m->size, MADV_RANDOM);
    if (m->data[m->size - 1] != '\n')
      throw Error(errc::input,
                  "key map '" + path + "': the last line has no newline (a truncated file?) (spec/KEYS.md)");
    const std::string_view all(m->data, m->size);
    m->legacy = !all.starts_with('#');
    if (!m->legacy) {
      if (!all.starts_with(kKeyMapHeader))
        m->fail(0, "not a simdex key map: the first line must be '#simdex-keys 1'");
      m->begin = kKeyMapHeader.size();
    }
    m->end = m->size;
  }
  if (m->begin < m->end) {  // the ids of the first and last entries bound every other
    std::string_view key;
    const char* first_eol =
        static_cast<const char*>(std::memchr(m->data + m->begin, '\n', m->end - m->begin));
    m->first_id = m->id_of(m->begin, static_cast<std::size_t>(first_eol - m->data), key);
    const char* before_last =
        static_cast<const char*>(::memrchr(m->data + m->begin, '\n', m->end - 1 - m->begin));
    const std::size_t last = before_last ? static_cast<std::size_t>(before_last - m->data) + 1 : m->begin;
    m->last_id = m->id_of(last, m->end - 1, key);
    if (m->last_id < m->first_id || (m->last_id == m->first_id && last != m->begin))
      m->fail(last, "ids must be strictly ascending (the last id, " + std::to_string(m->last_id) +
                        ", is not above the first, " + std::to_string(m->first_id) + ")");
  }
  map_ = std::move(m);
}

std::optional<std::string_view> MappedKeyMap::find(std::uint64_t id, std::string& scratch) const {
  const Mapping& m = *map_;
  if (m.begin == m.end || id < m.first_id || id > m.last_id) return std::nullopt;
  // The line of `id`, if any, starts in [lo, hi), both line starts; the ids of the lines there lie
  // in [low, high] in a well-formed map, which each line read is checked against.
  std::size_t lo = m.begin, hi = m.end;
  std::uint64_t low = m.first_id, high = m.last_id;
  for (int probe = 0; lo < hi; ++probe) {
    std::size_t at = lo + (hi - lo) / 2;
    if (probe < kInterpolationProbes) {
      // (In doubles: high - low + 1 is 2^64 for the whole range of ids.)
      const double span = static_cast<double>(high - low) + 1.0;
      at = lo + static_cast<std::size_t>(static_cast<double>(id - low) / span * static_cast<double>(hi - lo));
      at = std::min(at, hi - 1);
    }
    // The line holding byte `at`: it starts after the LF before `at` (or at lo), ends at the first
    // LF from `at` (there is one before hi: hi follows an LF, or is the file's end, after one).
    const void* before = ::memrchr(m.data + lo, '\n', at - lo);
    const std::size_t start =
        before ? static_cast<std::size_t>(static_cast<const char*>(before) - m.data) + 1 : lo;
    const auto eol =
        static_cast<std::size_t>(static_cast<const char*>(std::memchr(m.data + at, '\n', hi - at)) - m.data);
    std::string_view key;
    const std::uint64_t found = m.id_of(start, eol, key);
    if (found < low || found > high)
      m.fail(start, "ids must be strictly ascending (id " + std::to_string(found) +
                        " lies outside the ids of the lines around it, " + std::to_string(low) + ".." +
                        std::to_string(high) + ")");
    if (found == id) {
      if (const char* wrong = m.legacy ? nullptr : unescape_key_map_key(key, scratch)) m.fail(start, wrong);
      return key;
    }
    if (found < id) {
      lo = eol + 1;
      low = found + 1;
    } else {
      hi = start;
      high = found - 1;
    }
  }
  return std::nullopt;
}

std::optional<std::string> MappedKeyMap::find(std::uint64_t id) const {
  std::string scratch;
  if (const auto key = find(id, scratch)) return std::string(*key);
  return std::nullopt;
}

std::string MappedKeyMap::key_or_id(std::uint64_t id, bool list_separator) const {
  std::string scratch;
  if (const auto key = find(id, scratch)) return escape_key(*key, list_separator);
  return std::to_string(id);
}

std::size_t MappedKeyMap::size() const {
  const Mapping& m = *map_;
  std::call_once(m.counted, [&] {
    m.entries = static_cast<std::size_t>(std::count(m.data + m.begin, m.data + m.end, '\n'));
  });
  return m.entries;
}

std::vector<std::uint64_t> MappedKeyMap::ids() const {
  const Mapping& m = *map_;
  std::vector<std::uint64_t> ids;
  ids.reserve(size());
  KeyMapLines lines(m.path);
  lines.feed(std::string_view(m.data, m.size),
             [&](std::uint64_t id, std::string_view) { ids.push_back(id); });
  lines.finish();
  return ids;
}

const std::string& MappedKeyMap::path() const { return map_->path; }

}  // namespace simdex
