// Document keys and the key map (spec/KEYS.md, normative): a document keyed by a string (a URL, a
// path, a hash) gets the 64-bit id key_id(key); the key map, a side file next to the fingerprints
// or the index (`OUTPUT.keys.tsv`), maps those ids back to their keys.
//
//   simdex::KeyMapBuilder keys;
//   while (docs.next(doc)) keys.add(doc);      // checks that no two keys share an id
//   keys.write("docs.sdx.keys.tsv");           // atomic; sorted by id
//   const auto map = simdex::KeyMap::read("docs.sdx.keys.tsv");
//   std::string shown = map.key_or_id(42);     // the key, or "42" for an id without one
//
// Every function throws simdex::Error: errc::input for a collision or a malformed key map (naming
// the file and line), errc::io when a file cannot be read or written.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "simdex/error.h"
#include "simdex/export.h"

namespace simdex {

struct Document;

// The id of a string key: XXH3-64 (seed 0) of its bytes (spec/KEYS.md "Ids").
SIMDEX_EXPORT std::uint64_t key_id(std::string_view key);

// How a document got its id.
enum class IdKind : std::uint8_t {
  integer,  // an integer in the id field
  line,     // no id field (or null), or plain lines: the 0-based line number
  key,      // a string in the id field, or a directory's file path (relative, '/'-separated): the
            // id is key_id(key) (spec/KEYS.md)
};

// The default key map beside a file of fingerprints or an index: `path + ".keys.tsv"`.
SIMDEX_EXPORT std::string key_map_path(const std::string& beside);

// A key as a key map line holds it: '\\' -> "\\\\", TAB -> "\\t", LF -> "\\n", CR -> "\\r", other
// bytes 0x00..0x1F and 0x7F -> "\\xHH" (lowercase hex); every other byte as it is. With
// `list_separator`, ',' is written "\\x2c" too (keys in a comma-separated list of command output).
SIMDEX_EXPORT std::string escape_key(std::string_view key, bool list_separator = false);
// The inverse of escape_key (list_separator false); nothing when `escaped` is not the canonical
// escaped form of some key.
SIMDEX_EXPORT std::optional<std::string> unescape_key(std::string_view escaped);

// Collects the ids of an input's documents, checks them and writes the key map.
class SIMDEX_EXPORT KeyMapBuilder {
 public:
  // The document's id, kind, key and line (Document::id_kind etc.).
  void add(const Document& doc);
  // The same, spelled out (tests inject collisions with an `id` of their choosing). `line` is for
  // messages (1-based; 0 for a file of a directory).
  void add(std::uint64_t id, IdKind kind, std::string_view key, std::uint64_t line);
  std::size_t key_count() const { return keys_.size(); }  // documents with a key
  // Memory: a key costs its bytes and about 32 bytes; integer ids and line numbers are held as
  // runs (consecutive ids on consecutive lines: one run), so an input of ids 0, 1, 2, ... or of
  // line numbers costs nothing per document.
  // Throws Error(errc::input) when two documents share an id without being the same key: two keys
  // (a hash collision, naming both), a key and an integer id or line number, or an integer id and a
  // line number (an input mixing integer ids with records without one). Repeated integer ids and
  // repeated keys are fine (the same document fingerprinted twice). Sorts the keys by id.
  void check();
  // check(), then writes the key map to `path` atomically (temporary file, fsync, rename).
  void write(const std::string& path);
  // check(), then hands the key map's bytes to `sink` in pieces, in order: for a caller that
  // publishes the map itself (after the index it belongs to, say).
  void write_to(const std::function<void(std::string_view bytes)>& sink);
  // The key of `id` (after check()); nothing for an id without a key.
  std::optional<std::string_view> find(std::uint64_t id) const;

 private:
  struct Entry {  // a key
    std::uint64_t id;
    std::uint64_t line;
    std::uint64_t key;  // offset into bytes_
    std::uint32_t size;
  };
  struct Run {  // ids id .. id + count - 1 of one kind on lines line .. line + count - 1
    std::uint64_t id, line, count;
    IdKind kind;
  };
  std::string_view key_of(const Entry& e) const { return std::string_view(bytes_).substr(e.key, e.size); }
  std::vector<Entry> keys_;
  std::vector<Run> numbers_;  // kinds integer and line
  std::string bytes_;         // the keys, one after the other
  bool checked_ = false;
};

// A key map read back: id -> key. Holds the file's bytes once (the keys are read where they lie in
// them; only keys with escapes are kept unescaped apart) and 16 bytes an entry. Copies share the
// bytes.
class SIMDEX_EXPORT KeyMap {
 public:
  // Reads a key map (spec/KEYS.md), or a `paths.tsv` listing of simdex 0.1 (ID<TAB>PATH lines, no
  // header, no escaping; read as it is). Throws Error(errc::input) naming the file and line for
  // anything the spec tells a reader to reject.
  static KeyMap read(const std::string& path);
  // Parses the bytes of a key map (copied); `name` names it in messages.
  static KeyMap parse(std::string_view bytes, const std::string& name);
  std::optional<std::string_view> find(std::uint64_t id) const;
  // The key of `id` escaped as escape_key(key, list_separator) does, or the id in decimal.
  std::string key_or_id(std::uint64_t id, bool list_separator = false) const;
  std::size_t size() const { return ids_.size(); }
  // The i-th entry (0 <= i < size()), in ascending id order.
  std::uint64_t id_at(std::size_t i) const { return ids_[i]; }
  std::string_view key_at(std::size_t i) const;

 private:
  struct Bytes;  // the file's bytes (keys.cpp)
  static KeyMap index(std::shared_ptr<const Bytes> bytes, const std::string& name);

  std::vector<std::uint64_t> ids_;  // ascending
  // Where key i lies: with kUnescaped clear, at that offset in the file's bytes, as it is up to its
  // line's LF; with it set, at that offset in unescaped_, as a 4-byte size and the key's bytes.
  std::vector<std::uint64_t> keys_;
  std::string unescaped_;
  std::shared_ptr<const Bytes> bytes_;
};

// A key map looked up where it lies: the file is mapped, never read whole, so opening it is O(1)
// and its memory is the pages its lookups touch (in the page cache, shared by every process that
// maps the file), whatever its size: a set's map of a billion keys is tens of gigabytes. find(id)
// reads a handful of lines: an interpolation search over the file's bytes between the ids of the
// lines around the sought one (the ids of keys are hashes, spread evenly), turning to bisection
// when that does not converge (a few dozen lines at worst). Copies share the mapping; find() may
// be called from many threads at once.
//
// What it checks, as spec/KEYS.md allows a reader that reads only some lines: at open the first
// line and that the file ends in LF; at each lookup the id of every line it reads (its syntax, and
// that it lies between the ids of the lines around it) and the key it returns. A malformed map
// gives Error(errc::input) naming the file and the line's byte offset, never a crash or a read
// outside the file; a lookup that reads no line of a fault cannot see it. KeyMap::read checks
// every line.
class SIMDEX_EXPORT MappedKeyMap {
 public:
  // Error(io) when `path` cannot be opened or mapped, or is not a regular file; Error(input) when
  // its first or last line is malformed.
  explicit MappedKeyMap(const std::string& path);
  // The key of `id`, unescaped, copied to `scratch` (a view of it); nothing for an id without a
  // key. Error(file_changed) when the file was truncated or written in place while mapped (a
  // replacement by rename, as simdex writes maps, is not a change: the old map stays mapped).
  std::optional<std::string_view> find(std::uint64_t id, std::string& scratch) const;
  std::optional<std::string> find(std::uint64_t id) const;
  // The key of `id` escaped as escape_key(key, list_separator) does, or the id in decimal.
  std::string key_or_id(std::uint64_t id, bool list_separator = false) const;
  // The number of entries: the lines counted on the first call (a pass over the file's bytes).
  std::size_t size() const;
  // Every id, ascending: a pass over the whole file that checks every line as KeyMap::read does.
  std::vector<std::uint64_t> ids() const;
  const std::string& path() const;

 private:
  struct Mapping;

 public:
  // The entries one at a time, in the file's order (ids ascending), each line checked as
  // KeyMap::read checks it: a map of any size read whole in constant memory. It shares the
  // mapping, so it may outlive the map it came from; one cursor serves one thread at a time.
  class SIMDEX_EXPORT Entries {
   public:
    Entries(Entries&&) noexcept;
    Entries& operator=(Entries&&) noexcept;
    ~Entries();
    // The next entry: its id and key (unescaped; the view is valid until the next call), or false
    // past the last. Error(input) naming a malformed line, Error(file_changed) as find() gives it.
    bool next(std::uint64_t& id, std::string_view& key);

   private:
    friend class MappedKeyMap;
    explicit Entries(std::shared_ptr<const Mapping> map);
    struct State;
    std::unique_ptr<State> state_;
  };
  Entries entries() const;

 private:
  std::shared_ptr<const Mapping> map_;
};

}  // namespace simdex
