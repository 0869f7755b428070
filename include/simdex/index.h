// Reading an index file: open (memory-mapped, read-only, O(1) in the file size), query, info, verify.
//
//   auto index = simdex::Index::open("docs.sdx");
//   for (const simdex::Hit& hit : index.query(fingerprint, 3))
//     for (uint64_t id : hit.ids) use(hit.fingerprint, hit.distance, id);
//
// An Index is immutable: share one among threads freely. Many processes mapping the same file share
// its pages in the page cache. Every method throws simdex::Error on a malformed file, never crashes.
// A file changed under an open Index (truncated or overwritten in place instead of replaced by
// rename) makes the calls that read it throw Error(errc::file_changed): see OpenOptions.
#pragma once

#include <array>
#include <compare>
#include <cstdint>
#include <iterator>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "simdex/error.h"
#include "simdex/export.h"
#include "simdex/fingerprint.h"

namespace simdex {

// The ids of one fingerprint (ascending): read in place from the mapping (little-endian u64), or,
// for an index set whose answer merges members or drops removed ids, from a buffer the IdList
// shares ownership of (copies are cheap either way).
class SIMDEX_EXPORT IdList {
 public:
  class SIMDEX_EXPORT iterator {
   public:
    using iterator_category = std::random_access_iterator_tag;
    using value_type = uint64_t;
    using difference_type = std::ptrdiff_t;
    using pointer = void;
    using reference = uint64_t;
    iterator() = default;
    explicit iterator(const uint8_t* p) : p_(p) {}
    uint64_t operator*() const;
    iterator& operator++() {
      p_ += 8;
      return *this;
    }
    iterator operator++(int) {
      auto t = *this;
      p_ += 8;
      return t;
    }
    iterator& operator--() {
      p_ -= 8;
      return *this;
    }
    iterator operator--(int) {
      auto t = *this;
      p_ -= 8;
      return t;
    }
    iterator& operator+=(difference_type n) {
      p_ += 8 * n;
      return *this;
    }
    iterator& operator-=(difference_type n) {
      p_ -= 8 * n;
      return *this;
    }
    friend iterator operator+(iterator it, difference_type n) { return it += n; }
    friend iterator operator+(difference_type n, iterator it) { return it += n; }
    friend iterator operator-(iterator it, difference_type n) { return it -= n; }
    uint64_t operator[](difference_type n) const { return *(*this + n); }
    difference_type operator-(const iterator& o) const { return (p_ - o.p_) / 8; }
    bool operator==(const iterator& o) const = default;
    auto operator<=>(const iterator& o) const = default;

   private:
    const uint8_t* p_ = nullptr;
  };
  IdList() = default;
  IdList(const uint8_t* data, std::size_t count) : data_(data), count_(count) {}
  // Over `count` little-endian u64 at `data`, kept alive by `owner`.
  IdList(const uint8_t* data, std::size_t count, std::shared_ptr<const void> owner)
      : data_(data), count_(count), owner_(std::move(owner)) {}
  std::size_t size() const { return count_; }
  bool empty() const { return count_ == 0; }
  uint64_t operator[](std::size_t i) const { return *iterator(data_ + 8 * i); }
  iterator begin() const { return iterator(data_); }
  iterator end() const { return iterator(data_ + 8 * count_); }
  std::vector<uint64_t> to_vector() const { return {begin(), end()}; }

 private:
  const uint8_t* data_ = nullptr;
  std::size_t count_ = 0;
  std::shared_ptr<const void> owner_;  // null for a view into a mapping
};
static_assert(std::random_access_iterator<IdList::iterator>);  // ids are ascending: binary_search works

struct Hit {
  uint64_t fingerprint = 0;
  unsigned distance = 0;
  IdList ids;  // valid while the Index lives (and, for a set's merged ids, as long as the IdList)
};

struct TableInfo {
  std::array<uint8_t, 64> source_bit{};
  unsigned prefix_bits = 0;
  uint64_t block_count = 0;
  uint64_t bytes = 0;         // blocks + block keys + block ranks
  double bits_per_entry = 0;  // bytes * 8 / fingerprint_count
  // d_t of the BLOCK_DIRECTORY (format 2.1; at most 18 since 2.2): 2^d_t slots find a probe's
  // block; 0: none (a 2.0 or 1.x file, or a table of one block), probes search the block keys.
  unsigned directory_bits = 0;
  std::array<uint8_t, 64> code_length{};
};

struct IndexInfo {
  unsigned version_major = 0, version_minor = 0;
  std::string scheme_name;
  unsigned max_distance = 0;
  uint64_t fingerprint_count = 0;
  uint64_t id_count = 0;
  uint32_t block_bytes = 0;
  uint64_t file_bytes = 0;
  uint64_t ids_bytes = 0;  // ID_OFFSETS + IDS
  std::vector<TableInfo> tables;
  // What identifies the index open (Index::checksum): a file's header_checksum, a set's
  // manifest_checksum.
  uint64_t checksum = 0;
  double floor_bits_per_entry = 0;  // log2 C(2^64, n) / n: no encoding of the set does better
  // The tagged sections of a format 2 file (spec/FORMAT.md §5.1), in tag order; none in 1.x.
  struct TaggedSection {
    uint32_t tag = 0;
    std::string name;  // the spec's name, empty for a tag this reader does not know
    bool critical = false;
    uint64_t bytes = 0;
  };
  std::vector<TaggedSection> tagged_sections;
  // How the fingerprints were made from text (FINGERPRINT_SETTINGS), nullopt when not recorded;
  // a set: see Index::fingerprint_settings.
  std::optional<FingerprintSettings> fingerprint_settings;
  // A set whose members record different settings (fingerprint_settings is then nullopt): a good
  // set, but one that queries by text refuse (Error(settings_mismatch)).
  bool fingerprint_settings_differ = false;
  // An index set (spec/SET.md): its generation and members (the fields above then describe the
  // set: live fingerprints and ids, all its files' bytes; `tables` stays empty, see members).
  struct Member {
    std::string name;  // relative to the manifest's directory
    uint64_t generation = 0;
    uint64_t fingerprint_count = 0, id_count = 0, file_bytes = 0;
    std::string scheme_name;
    std::size_t table_count = 0;
  };
  bool is_set = false;
  uint64_t generation = 0;
  std::vector<Member> members;  // the members opened (all, unless OpenOptions::set_members)
  uint64_t removed_ids = 0;     // ids listed by the set's tombstones
  std::size_t tombstone_count = 0;
};

struct Problem {
  errc code;
  std::string where;  // "table 3 block 17 (offset 123456)", "header", ...
  std::string what;
};

struct VerifyReport {
  std::vector<Problem> problems;  // the first problems found, at most 100
  uint64_t blocks_checked = 0;
  uint64_t bytes_checked = 0;
  // Rules left undecided, not failures: `coverage` when its search ran past its budget.
  std::vector<Problem> unchecked;
  bool ok() const { return problems.empty(); }
};

struct OpenOptions {
  // Detect a file changed under the reader (spec/FORMAT.md, "Readers and changed files"). simdex then
  // installs handlers for SIGBUS and for the signal SIGRTMIN + 6 (the break of the read lease it
  // takes on the file where it may), at the first open and again at an open that finds another
  // handler put in since; both pass every signal that is not about one of its mappings on to the
  // handler they replaced (a fault that comes back uncured from it gets the default action). false: no
  // handler and no lease; a truncated file then ends the process with SIGBUS (for programs that own these
  // signals).
  bool detect_changes = true;
  // For an index set: open only these members (indices into the manifest's members, in generation
  // order; see IndexInfo::members of a full open), e.g. one member per MPI rank. Empty: all. The
  // answers are those of the set holding only these members, every removal applied.
  std::vector<std::size_t> set_members{};
  // What open() loads into memory before it returns, for a process whose first queries must be as
  // fast as later ones. `none` (default): nothing, so open costs the same for any file size and each
  // page is read on first use. `keys`: what a probe reads to find its block: every table's block
  // keys (8 bytes per block) and block directory (at most 4 bytes per block, format 2.1; copied
  // into memory, at most 1 MiB a table); `all`: the whole file. Pages come from disk when not
  // cached and are mapped into the process (madvise MADV_POPULATE_READ, or one read per page where
  // the kernel lacks it); with `all`, those not cached are read in 2 MiB folios where the kernel
  // and file system allow it, so that the file is mapped with 2 MiB pages (README.md). An index set
  // applies it to each member.
  enum class Preload { none, keys, all };
  Preload preload = Preload::none;
};

class SIMDEX_EXPORT Index {
 public:
  // Opens an index file or an index set (spec/SET.md: a manifest naming member index files and
  // removed ids), told apart by their magic; every method answers for both alike. A file: maps it
  // read-only and checks the header, table descriptors and section table. A set: reads its manifest
  // and opens each member and tombstone file the same way (a snapshot: later changes to the set are
  // not seen until reopen()).
  static Index open(const std::string& path, const OpenOptions& options);
  static Index open(const std::string& path) { return open(path, OpenOptions{}); }
  // The same over bytes the caller keeps alive (tests, fuzzing, files read some other way).
  static Index from_buffer(const uint8_t* data, std::size_t size);

  // A new Index over what `path` names now: the newest manifest of a set (members already open in
  // this snapshot are shared, not mapped again), or the file now at the path (one replaced by
  // rename). This Index stays valid and unchanged; swap it for the new one when convenient.
  // Error(stale_manifest) when a set's manifest is older than this snapshot's; Error(usage) for an
  // Index made by from_buffer.
  Index reopen() const;
  bool is_set() const;

  // A moved-from Index may only be assigned to or destroyed (as a moved-from stream).
  Index(Index&&) noexcept;
  Index& operator=(Index&&) noexcept;
  ~Index();

  uint64_t fingerprint_count() const;  // a set: its live fingerprints (counted once, on first use)
  unsigned max_distance() const;       // queries may ask for any k up to this
  // The k a search uses: max_distance() when `k` is negative, else `k`. Throws Error(usage) when
  // k > max_distance(), since the tables find nothing farther; query() and the batch jobs of
  // simdex/batch.h apply this same rule.
  unsigned search_distance(int k) const;
  std::size_t table_count() const;  // a set: its first member's

  // Every stored fingerprint within Hamming distance k of `fingerprint`, each once, sorted by
  // (distance, fingerprint). Throws Error(usage) when k > max_distance().
  std::vector<Hit> query(uint64_t fingerprint, unsigned k) const;
  // The same into `out`, reusing its capacity.
  void query(uint64_t fingerprint, unsigned k, std::vector<Hit>& out) const;
  // The ids of a stored fingerprint (empty when it is not stored).
  IdList ids_of(uint64_t fingerprint) const;

  IndexInfo info() const;
  // What identifies the index open, cheaply: a file's header_checksum (spec/FORMAT.md §3: a hash of
  // its header region, which holds every section's XXH3-64, so of all its bytes), a set's
  // manifest_checksum (spec/SET.md §2.1: its generation, members, their header_checksums and its
  // tombstones; of the manifest read, whichever members OpenOptions::set_members chose). Two opens
  // of the same file or manifest give the same value; another index gives another one (but for a
  // 64-bit collision). Python's pickled Index checks it when reopened.
  uint64_t checksum() const;
  // How the fingerprints were made from text (spec/FORMAT.md §5.2), nullopt when the index records
  // none (built from fingerprints, or a 1.x file). A set: the settings its members record (members
  // recording none do not count); Error(settings_mismatch) when two members disagree. Cheap.
  std::optional<FingerprintSettings> fingerprint_settings() const;
  // Reads every byte: all checksums and every structural rule of spec/FORMAT.md.
  VerifyReport verify() const;

  // Throws Error(file_changed) when the file is known to have changed since open. Every method that
  // reads the file does this check on its way out; call it after reading IdLists that you keep. Where
  // simdex holds no lease on the file (see spec/FORMAT.md) it compares fstat with open's: one
  // system call.
  void check_unchanged() const;

  struct Impl;  // internal: reader/

 private:
  explicit Index(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
  friend const Impl& index_impl(const Index&);
  friend Index index_from_impl(std::unique_ptr<Impl> impl);
};

}  // namespace simdex
