// MappedKeyMap: a key map (spec/KEYS.md) looked up in place, by interpolation search over its bytes.
#include <algorithm>
#include <cstring>
#include <mutex>
#include <type_traits>

#include "fingerprint/key_map_lines.h"
#include "reader/mapped_file.h"
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
  // Watched as an index is (reader/change_watch.h): a map truncated or written in place under a
  // lookup reads zeros, not a fault, and the lookup throws Error(file_changed).
  explicit Mapping(const std::string& path)
      : file(path, /*watch_changes=*/true, "key map"),
        data(reinterpret_cast<const char*>(file.data())),
        size(file.size()) {}

  reader::MappedFile file;
  const char* data;  // null for an empty file, which read_bounds() refuses
  std::size_t size;
  bool legacy = false;                      // simdex 0.1's paths.tsv: no header, keys as they are
  std::size_t begin = 0, end = 0;           // the entries' lines: [begin, end), each ending in LF
  std::uint64_t first_id = 0, last_id = 0;  // of the first and the last entry (when there is one)
  mutable std::once_flag counted;
  mutable std::size_t entries = 0;  // size(), once counted

  void check_unchanged() const {
    if (reader::changed(file.watch()->changed_flag()))
      throw Error(errc::file_changed, "key map '" + file.path() +
                                          "' changed while open (truncated or written in place); open it "
                                          "again. Publish key maps by rename, as simdex writes them");
  }

  // Runs `read` (reading the mapped bytes); a malformed line it met is the change, if there was one.
  template <class Read>
  auto guarded(Read&& read) const {
    try {
      if constexpr (std::is_void_v<decltype(read())>) {
        read();
        check_unchanged();
      } else {
        auto result = read();
        check_unchanged();
        return result;
      }
    } catch (const Error& e) {
      if (e.code() == errc::input) check_unchanged();
      throw;
    }
  }

  [[noreturn]] void fail(std::size_t at, const std::string& what) const {
    throw Error(errc::input, "key map '" + file.path() + "': the line at byte " + std::to_string(at) + ": " +
                                 what + " (spec/KEYS.md)");
  }

  // The end (its LF) of the line holding byte `at`, before `to`: there is one in a map whose bytes
  // end in LF, unless the file changed under the mapping (zeros).
  std::size_t eol_at(std::size_t at, std::size_t to) const {
    const void* lf = std::memchr(data + at, '\n', to - at);
    if (!lf) fail(at, "no LF before the next line read");
    return static_cast<std::size_t>(static_cast<const char*>(lf) - data);
  }

  // The id of the line that starts at `start` and ends (LF) at `eol`, and its key as written; a
  // malformed id throws. (A probe needs the id only: a key is checked and unescaped when returned.)
  std::uint64_t id_of(std::size_t start, std::size_t eol, std::string_view& key) const {
    std::uint64_t id = 0;
    if (const char* wrong = parse_key_map_id({data + start, eol - start}, id, key)) fail(start, wrong);
    return id;
  }

  // The first and last entries' ids, which bound every other.
  void read_bounds() {
    if (size == 0)
      throw Error(errc::input, "key map '" + file.path() + "': " + kEmptyKeyMap + " (spec/KEYS.md)");
    if (data[size - 1] != '\n')
      throw Error(errc::input, "key map '" + file.path() +
                                   "': the last line has no newline (a truncated file?) (spec/KEYS.md)");
    const std::size_t first_eol = eol_at(0, size);
    const KeyMapFirstLine first = key_map_first_line(std::string_view(data, first_eol));
    if (first == KeyMapFirstLine::not_a_key_map) fail(0, kNotAKeyMap);
    legacy = first == KeyMapFirstLine::legacy_entry;
    if (!legacy) begin = first_eol + 1;
    end = size;
    if (begin == end) return;
    std::string_view key;
    first_id = id_of(begin, eol_at(begin, end), key);
    const void* before_last = ::memrchr(data + begin, '\n', end - 1 - begin);
    const std::size_t last =
        before_last ? static_cast<std::size_t>(static_cast<const char*>(before_last) - data) + 1 : begin;
    last_id = id_of(last, end - 1, key);
    if (last_id < first_id || (last_id == first_id && last != begin))
      fail(last, "ids must be strictly ascending (the last id, " + std::to_string(last_id) +
                     ", is not above the first, " + std::to_string(first_id) + ")");
  }

  // find(): the line of `id`, its key copied to `scratch` (unescaped).
  bool find(std::uint64_t id, std::string& scratch) const {
    if (begin == end || id < first_id || id > last_id) return false;
    // The line of `id`, if any, starts in [lo, hi), both line starts; the ids of the lines there
    // lie in [low, high] in a well-formed map, which each line read is checked against.
    std::size_t lo = begin, hi = end;
    std::uint64_t low = first_id, high = last_id;
    for (int probe = 0; lo < hi; ++probe) {
      std::size_t at = lo + (hi - lo) / 2;
      if (probe < kInterpolationProbes) {
        // (In doubles: high - low + 1 is 2^64 for the whole range of ids.)
        const double span = static_cast<double>(high - low) + 1.0;
        at = lo +
             static_cast<std::size_t>(static_cast<double>(id - low) / span * static_cast<double>(hi - lo));
        at = std::min(at, hi - 1);
      }
      // The line holding byte `at`: it starts after the LF before `at` (or at lo) and ends at the
      // first LF from `at` (hi follows an LF, or is the file's end, after one).
      const void* before = ::memrchr(data + lo, '\n', at - lo);
      const std::size_t start =
          before ? static_cast<std::size_t>(static_cast<const char*>(before) - data) + 1 : lo;
      const std::size_t eol = eol_at(at, hi);
      std::string_view key;
      const std::uint64_t found = id_of(start, eol, key);
      if (found < low || found > high)
        fail(start, "ids must be strictly ascending (id " + std::to_string(found) +
                        " lies outside the ids of the lines around it, " + std::to_string(low) + ".." +
                        std::to_string(high) + ")");
      if (found == id) {
        // Copied: the mapped bytes are valid only as long as the file is unchanged, checked after.
        if (const char* wrong = legacy ? nullptr : unescape_key_map_key(key, scratch)) fail(start, wrong);
        if (key.data() != scratch.data()) scratch.assign(key);
        return true;
      }
      if (found < id) {
        lo = eol + 1;
        low = found + 1;
      } else {
        hi = start;
        high = found - 1;
      }
    }
    return false;
  }
};

MappedKeyMap::MappedKeyMap(const std::string& path) {
  auto m = std::make_shared<Mapping>(path);
  m->guarded([&] { m->read_bounds(); });
  map_ = std::move(m);
}

std::optional<std::string_view> MappedKeyMap::find(std::uint64_t id, std::string& scratch) const {
  if (!map_->guarded([&] { return map_->find(id, scratch); })) return std::nullopt;
  return std::string_view(scratch);
}

std::optional<std::string> MappedKeyMap::find(std::uint64_t id) const {
  std::string scratch;
  if (find(id, scratch)) return scratch;
  return std::nullopt;
}

std::string MappedKeyMap::key_or_id(std::uint64_t id, bool list_separator) const {
  std::string scratch;
  if (const auto key = find(id, scratch)) return escape_key(*key, list_separator);
  return std::to_string(id);
}

std::size_t MappedKeyMap::size() const {
  const Mapping& m = *map_;
  return m.guarded([&] {
    std::call_once(m.counted, [&] {
      m.entries = static_cast<std::size_t>(std::count(m.data + m.begin, m.data + m.end, '\n'));
    });
    return m.entries;
  });
}

std::vector<std::uint64_t> MappedKeyMap::ids() const {
  std::vector<std::uint64_t> ids;
  ids.reserve(size());
  Entries all = entries();
  std::uint64_t id = 0;
  std::string_view key;
  while (all.next(id, key)) ids.push_back(id);
  return ids;
}

struct MappedKeyMap::Entries::State {
  explicit State(std::shared_ptr<const Mapping> m) : map(std::move(m)), lines(map->file.path()) {}
  std::shared_ptr<const Mapping> map;
  KeyMapLines lines;   // checks each line: its syntax, and that the ids ascend
  std::size_t at = 0;  // the start of the next line to read
  std::string key;     // the last entry's key, copied out of the mapped bytes
};

MappedKeyMap::Entries::Entries(std::shared_ptr<const Mapping> map)
    : state_(std::make_unique<State>(std::move(map))) {}
MappedKeyMap::Entries::Entries(Entries&&) noexcept = default;
MappedKeyMap::Entries& MappedKeyMap::Entries::operator=(Entries&&) noexcept = default;
MappedKeyMap::Entries::~Entries() = default;

bool MappedKeyMap::Entries::next(std::uint64_t& id, std::string_view& key) {
  State& s = *state_;
  const Mapping& m = *s.map;
  return m.guarded([&] {
    // A line at a time: the header line gives no entry, so read on.
    while (s.at < m.size) {
      const std::size_t eol = m.eol_at(s.at, m.size);
      std::string_view line_key;
      const bool entry = s.lines.next(std::string_view(m.data + s.at, eol - s.at), id, line_key);
      s.at = eol + 1;
      if (!entry) continue;
      s.key.assign(line_key);  // copied: the mapped bytes are valid only while the file is unchanged
      key = s.key;
      return true;
    }
    return false;
  });
}

MappedKeyMap::Entries MappedKeyMap::entries() const { return Entries(map_); }

const std::string& MappedKeyMap::path() const { return map_->file.path(); }

}  // namespace simdex
