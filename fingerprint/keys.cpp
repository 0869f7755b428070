// Keys, their ids and the key map file (spec/KEYS.md).
#include "simdex/keys.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <limits>

#include "fingerprint/key_map_lines.h"
#include "format/huge_pages.h"
#include "format/standard_output_guard.h"
#include "format/system_error.h"
#include "format/xxh3.h"
#include "io/fd_io.h"
#include "simdex/documents.h"
#include "simdex/error.h"
#include "writer/atomic_file.h"

namespace simdex {

namespace {

constexpr char kHex[] = "0123456789abcdef";

int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  return -1;  // uppercase is not canonical
}
bool needs_hex(unsigned char c) { return c < 0x20 || c == 0x7f; }
// A key without '\\' and control bytes is its own escaped form (most keys: no copy is made).
bool written_as_it_is(std::string_view key) {
  for (const char c : key)
    if (c == '\\' || needs_hex(static_cast<unsigned char>(c))) return false;
  return true;
}

// Whose id a number is, for messages: "the integer id of line 3", or of a record without an id
// field, "the id of line 5 (a record without one: its 0-based line number)".
std::string number_of(IdKind kind, const std::string& where) {
  return kind == IdKind::integer ? "the integer id of " + where
                                 : "the id of " + where + " (a record without one: its 0-based line number)";
}

}  // namespace

std::uint64_t key_id(std::string_view key) { return XXH3_64bits(key.data(), key.size()); }

std::string key_map_path(const std::string& beside) { return beside + ".keys.tsv"; }

std::string escape_key(std::string_view key, bool list_separator) {
  std::string out;
  out.reserve(key.size());
  auto special = [list_separator](char ch) {
    const auto c = static_cast<unsigned char>(ch);
    return c == '\\' || needs_hex(c) || (list_separator && c == ',');
  };
  for (std::size_t i = 0; i < key.size();) {
    // A run of bytes written as they are, appended at once (most keys are one run).
    std::size_t run = i;
    while (run < key.size() && !special(key[run])) ++run;
    out.append(key.data() + i, run - i);
    if (run == key.size()) break;
    const auto c = static_cast<unsigned char>(key[run]);
    if (c == '\\') {
      out += "\\\\";
    } else if (c == '\t') {
      out += "\\t";
    } else if (c == '\n') {
      out += "\\n";
    } else if (c == '\r') {
      out += "\\r";
    } else {
      out += "\\x";
      out += kHex[c >> 4];
      out += kHex[c & 15];
    }
    i = run + 1;
  }
  return out;
}

std::optional<std::string> unescape_key(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (std::size_t i = 0; i < s.size(); ++i) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (needs_hex(c)) return std::nullopt;  // a raw control byte
    if (c != '\\') {
      out += s[i];
      continue;
    }
    if (++i == s.size()) return std::nullopt;
    switch (s[i]) {
      case '\\':
        out += '\\';
        break;
      case 't':
        out += '\t';
        break;
      case 'n':
        out += '\n';
        break;
      case 'r':
        out += '\r';
        break;
      case 'x': {
        if (i + 2 >= s.size()) return std::nullopt;
        const int hi = hex_value(s[i + 1]), lo = hex_value(s[i + 2]);
        if (hi < 0 || lo < 0) return std::nullopt;
        const auto b = static_cast<unsigned char>(hi * 16 + lo);
        // Only bytes without a short form and that must be escaped: one spelling per key.
        if (!needs_hex(b) || b == '\t' || b == '\n' || b == '\r') return std::nullopt;
        out += static_cast<char>(b);
        i += 2;
        break;
      }
      default:
        return std::nullopt;
    }
  }
  return out;
}

void KeyMapBuilder::add(const Document& doc) { add(doc.id, doc.id_kind, doc.key, doc.line); }

void KeyMapBuilder::add(std::uint64_t id, IdKind kind, std::string_view key, std::uint64_t line) {
  checked_ = false;
  if (kind != IdKind::key) {
    Run* last = numbers_.empty() ? nullptr : &numbers_.back();
    if (last && last->kind == kind && id - last->id == last->count && line - last->line == last->count &&
        id != UINT64_MAX)
      ++last->count;
    else
      numbers_.push_back({id, line, 1, kind});
    return;
  }
  if (key.size() > UINT32_MAX) throw Error(errc::input, "a key of more than 4 GiB");
  keys_.push_back({id, line, bytes_.size(), static_cast<std::uint32_t>(key.size())});
  bytes_.append(key);
}

namespace {

// Runs sorted by first id, with the largest last id of each prefix: the runs holding an id v are
// among those starting at or before v whose prefix reaches v.
template <typename Run>
class RunIndex {
 public:
  explicit RunIndex(std::vector<const Run*> runs) : runs_(std::move(runs)) {
    std::sort(runs_.begin(), runs_.end(), [](const Run* a, const Run* b) { return a->id < b->id; });
    std::uint64_t reach = 0;
    for (const Run* r : runs_) reach_.push_back(reach = std::max(reach, r->id + (r->count - 1)));
  }
  // A run holding an id in [lo, hi], or null.
  const Run* find(std::uint64_t lo, std::uint64_t hi) const {
    std::size_t i =
        static_cast<std::size_t>(std::upper_bound(runs_.begin(), runs_.end(), hi,
                                                  [](std::uint64_t v, const Run* r) { return v < r->id; }) -
                                 runs_.begin());
    if (i == 0 || reach_[i - 1] < lo) return nullptr;
    while (runs_[i - 1]->id + (runs_[i - 1]->count - 1) < lo) --i;  // a run that reaches lo exists
    return runs_[i - 1];
  }

 private:
  std::vector<const Run*> runs_;
  std::vector<std::uint64_t> reach_;
};

}  // namespace

void KeyMapBuilder::check() {
  if (checked_) return;
  std::stable_sort(keys_.begin(), keys_.end(), [](const Entry& a, const Entry& b) { return a.id < b.id; });
  auto where = [](std::uint64_t line) {
    return line ? "line " + std::to_string(line) : std::string("a file");
  };
  auto quoted = [this](const Entry& e) { return "\"" + escape_key(key_of(e)) + "\""; };
  // Two keys with one id.
  for (std::size_t i = 1; i < keys_.size(); ++i)
    if (keys_[i].id == keys_[i - 1].id && key_of(keys_[i]) != key_of(keys_[i - 1]))
      throw Error(errc::input, "keys " + quoted(keys_[i - 1]) + " (" + where(keys_[i - 1].line) + ") and " +
                                   quoted(keys_[i]) + " (" + where(keys_[i].line) + ") have the same id " +
                                   std::to_string(keys_[i].id) + " (an XXH3-64 collision, spec/KEYS.md)");
  std::vector<const Run*> all, integers;
  for (const Run& r : numbers_) {
    all.push_back(&r);
    if (r.kind == IdKind::integer) integers.push_back(&r);
  }
  const RunIndex<Run> by_id(all), integer_ids(integers);
  auto line_of = [](const Run& r, std::uint64_t id) { return r.line + (id - r.id); };
  // An integer id and a line number with one value.
  for (const Run& r : numbers_) {
    if (r.kind != IdKind::line) continue;
    const Run* i = integer_ids.find(r.id, r.id + (r.count - 1));
    if (!i) continue;
    const std::uint64_t id = std::max(r.id, i->id);
    throw Error(errc::input, "id " + std::to_string(id) + " is " +
                                 number_of(IdKind::integer, where(line_of(*i, id))) + " and " +
                                 number_of(IdKind::line, where(line_of(r, id))) +
                                 ": give every record an id field, or none (spec/KEYS.md)");
  }
  // A key and a number with one id.
  for (const Entry& k : keys_)
    if (const Run* r = by_id.find(k.id, k.id))
      throw Error(errc::input, "key " + quoted(k) + " (" + where(k.line) + ") has id " +
                                   std::to_string(k.id) + ", " +
                                   number_of(r->kind, where(line_of(*r, k.id))) + " (spec/KEYS.md)");
  checked_ = true;
}

void KeyMapBuilder::write(const std::string& path) {
  check();
  writer::AtomicFile out(path);
  write_to([&](std::string_view bytes) { out.write(bytes.data(), bytes.size()); });
  out.publish();
}

void KeyMapBuilder::write_to(const std::function<void(std::string_view bytes)>& sink) {
  check();
  std::string buffer(kKeyMapHeader);
  auto emit = [&] {
    sink(buffer);
    buffer.clear();
  };
  for (std::size_t i = 0; i < keys_.size(); ++i) {
    if (i > 0 && keys_[i].id == keys_[i - 1].id) continue;  // the same key again
    append_key_map_line(buffer, keys_[i].id, key_of(keys_[i]));
    if (buffer.size() >= (1 << 16)) emit();
  }
  emit();
}

std::optional<std::string_view> KeyMapBuilder::find(std::uint64_t id) const {
  if (!checked_) throw Error(errc::usage, "KeyMapBuilder::find before check()");
  const auto it = std::lower_bound(keys_.begin(), keys_.end(), id,
                                   [](const Entry& e, std::uint64_t v) { return e.id < v; });
  if (it == keys_.end() || it->id != id) return std::nullopt;
  return key_of(*it);
}

struct KeyMap::Bytes {
  format::HugeBuffer<char> data;
  std::string_view view() const { return {data.data(), data.size()}; }
};

int open_key_map_file(const std::string& path) {
  // O_NONBLOCK: opening a FIFO would wait for a writer (a regular file's reads ignore the flag).
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) throw system_error("cannot open key map", path);
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    if (S_ISDIR(st.st_mode)) throw Error(errc::io, "key map '" + path + "' is a directory", EISDIR);
    throw Error(errc::io, "key map '" + path + "' is not a regular file");
  }
  format::check_not_standard_output(fd, path, format::CloseOnRefusal::yes);
  return fd;
}

KeyMap KeyMap::read(const std::string& path) {
  const int fd = open_key_map_file(path);
  auto bytes = std::make_shared<Bytes>();
  struct stat st {};
  if (::fstat(fd, &st) == 0) bytes->data.reserve(static_cast<std::size_t>(st.st_size) + 1);
  // Read to the end (the file may have grown since fstat).
  for (;;) {
    if (bytes->data.capacity() == bytes->data.size())  // (a file read whole has 1 byte left for EOF)
      bytes->data.reserve(std::max<std::size_t>(2 * bytes->data.capacity(), 1 << 20));
    const std::size_t have = bytes->data.size(), room = bytes->data.capacity() - have;
    const ssize_t got = io::read_some(fd, bytes->data.data() + have, room);
    if (got < 0) {
      const int error = errno;
      ::close(fd);
      throw Error(errc::io, "read error on key map '" + path + "': " + std::strerror(error), error);
    }
    if (got == 0) break;
    bytes->data.resize(have + static_cast<std::size_t>(got));
  }
  ::close(fd);
  return index(std::move(bytes), path);
}

void append_key_map_line(std::string& out, std::uint64_t id, std::string_view key) {
  char digits[24];
  out.append(digits, std::to_chars(digits, digits + sizeof digits, id).ptr);
  out += '\t';
  out += escape_key(key);
  out += '\n';
}

const char* parse_key_map_id(std::string_view line, std::uint64_t& id, std::string_view& key) {
  const auto tab = line.find('\t');
  if (tab == std::string_view::npos) return "no TAB between id and key";
  const std::string_view digits = line.substr(0, tab);
  const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), id);
  if (digits.empty() || ec != std::errc() || end != digits.data() + digits.size() ||
      (digits.size() > 1 && digits[0] == '0'))
    return "the id must be a decimal integer in 0..2^64-1 without leading zeros";
  key = line.substr(tab + 1);
  return nullptr;
}

const char* parse_key_map_entry(std::string_view line, bool legacy, std::uint64_t& id, std::string_view& key,
                                std::string& unescaped) {
  if (const char* wrong = parse_key_map_id(line, id, key)) return wrong;
  return legacy ? nullptr : unescape_key_map_key(key, unescaped);
}

const char* unescape_key_map_key(std::string_view& key, std::string& unescaped) {
  if (!written_as_it_is(key)) {
    std::optional<std::string> plain = unescape_key(key);
    if (!plain) return "the key is not escaped as the spec says (a raw control byte or a bad escape)";
    unescaped = std::move(*plain);
    key = unescaped;
  }
  return nullptr;
}

KeyMapFirstLine key_map_first_line(std::string_view line) {
  if (!line.starts_with('#')) return KeyMapFirstLine::legacy_entry;
  return line == kKeyMapHeader.substr(0, kKeyMapHeader.size() - 1) ? KeyMapFirstLine::header
                                                                   : KeyMapFirstLine::not_a_key_map;
}

bool KeyMapLines::next(std::string_view line, std::uint64_t& id, std::string_view& key) {
  ++line_no_;
  auto fail = [&](const std::string& what) {
    return Error(errc::input, name_ + ":" + std::to_string(line_no_) + ": " + what + " (spec/KEYS.md)");
  };
  if (!legacy_) {
    const KeyMapFirstLine first = key_map_first_line(line);
    if (first == KeyMapFirstLine::not_a_key_map) throw fail(kNotAKeyMap);
    legacy_ = first == KeyMapFirstLine::legacy_entry;
    if (!*legacy_) return false;
  }
  if (const char* wrong = parse_key_map_entry(line, *legacy_, id, key, unescaped_)) throw fail(wrong);
  if (last_id_ && id <= *last_id_)
    throw fail("ids must be strictly ascending (id " + std::to_string(id) + " after " +
               std::to_string(*last_id_) + ")");
  last_id_ = id;
  return true;
}

void KeyMapLines::finish() const {
  if (line_no_ == 0 && partial_.empty())
    throw Error(errc::input, name_ + ": " + kEmptyKeyMap + " (spec/KEYS.md)");
  if (!partial_.empty())
    throw Error(errc::input, name_ + ":" + std::to_string(line_no_ + 1) +
                                 ": the last line has no newline (a truncated file?) (spec/KEYS.md)");
}

KeyMap KeyMap::parse(std::string_view bytes, const std::string& name) {
  auto copy = std::make_shared<Bytes>();
  copy->data.append(bytes.data(), bytes.size());
  return index(std::move(copy), name);
}

namespace {
constexpr std::uint64_t kUnescaped = std::uint64_t{1} << 63;
}

KeyMap KeyMap::index(std::shared_ptr<const Bytes> bytes, const std::string& name) {
  KeyMap map;
  const std::string_view all = bytes->view();
  const auto lines_in_file = static_cast<std::size_t>(std::count(all.begin(), all.end(), '\n'));
  map.ids_.reserve(lines_in_file);  // (one more than the entries, for the header)
  map.keys_.reserve(lines_in_file);
  KeyMapLines lines(name);
  lines.feed(all, [&](std::uint64_t id, std::string_view key) {
    map.ids_.push_back(id);
    if (key.data() >= all.data() && key.data() <= all.data() + all.size()) {  // the key as written
      map.keys_.push_back(static_cast<std::uint64_t>(key.data() - all.data()));
      return;
    }
    if (key.size() > std::numeric_limits<std::uint32_t>::max())
      throw Error(errc::input, name + ": a key of " + std::to_string(key.size()) + " bytes (spec/KEYS.md)");
    map.keys_.push_back(kUnescaped | map.unescaped_.size());
    const auto size = static_cast<std::uint32_t>(key.size());
    map.unescaped_.append(reinterpret_cast<const char*>(&size), sizeof size);
    map.unescaped_.append(key);
  });
  lines.finish();
  map.bytes_ = std::move(bytes);
  return map;
}

std::string_view KeyMap::key_at(std::size_t i) const {
  const std::uint64_t at = keys_[i];
  if (at & kUnescaped) {
    const std::size_t offset = static_cast<std::size_t>(at & ~kUnescaped);
    std::uint32_t size = 0;
    std::memcpy(&size, unescaped_.data() + offset, sizeof size);
    return std::string_view(unescaped_).substr(offset + sizeof size, size);
  }
  // Every line of the file ends in LF (KeyMapLines::finish checked it).
  const std::string_view rest = bytes_->view().substr(static_cast<std::size_t>(at));
  return rest.substr(0, rest.find('\n'));
}

std::optional<std::string_view> KeyMap::find(std::uint64_t id) const {
  const auto it = std::lower_bound(ids_.begin(), ids_.end(), id);
  if (it == ids_.end() || *it != id) return std::nullopt;
  return key_at(static_cast<std::size_t>(it - ids_.begin()));
}

std::string KeyMap::key_or_id(std::uint64_t id, bool list_separator) const {
  if (const auto key = find(id)) return escape_key(*key, list_separator);
  return std::to_string(id);
}

}  // namespace simdex
