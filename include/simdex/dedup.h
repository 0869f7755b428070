// Deduplication of a dataset in one call: documents in (JSON Lines, plain lines or a directory, as
// simdex::DocumentSource reads them), near-duplicate clusters found, one document kept per cluster,
// the dataset without the others out. What `simdex dedup` runs:
//
//   simdex::DedupOptions o;                          // k = kDocumentK, keep the first of a cluster
//   o.keep = simdex::KeepPolicy::longest;
//   const auto result = simdex::dedup("docs.jsonl.gz", "deduped.jsonl", o);
//   for (const auto& c : result.clusters) use(c.members[c.kept].key, c.members.size());
//
// The steps are those of the pipeline `simdex fingerprint` -> `simdex build` -> `simdex clusters
// --ids` it replaces: the documents' fingerprints (spec/FINGERPRINT.md) with their ids
// (spec/KEYS.md) go into an index (kept at options.index, or a temporary one), whose clusters within
// k (connected components, find_clusters) give the groups of duplicates.
//
// Memory: the fingerprinting and the index build stay within options.memory_bytes; beside it, the
// clustering holds about 90 bytes per document (40 for the union-find over the index, 48 for the
// documents' ids, fingerprints, lines and lengths and their order by id) plus the bytes of the
// documents' string keys and about 40 bytes per key (the key map, checked for collisions).
// Every function throws simdex::Error (errc::input naming the file and line of a malformed
// document or a collision of ids, errc::io, errc::usage).
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "simdex/documents.h"
#include "simdex/error.h"
#include "simdex/export.h"
#include "simdex/fingerprint.h"
#include "simdex/keys.h"

namespace simdex {

// The k for text documents with the default fingerprint (word 3-shingles): the largest k whose
// precision on the corpus of data/corpus is still 100.0% (README "Choosing k for text": 58.5% of the
// true pairs found at k = 7 against 50.6% at k = 6; at k = 8 the first false pairs appear).
inline constexpr unsigned kDocumentK = 7;

// Which document of a cluster is kept; ties go to the first in input order.
enum class KeepPolicy {
  first,     // the first in input order
  longest,   // the longest text (in bytes, as read: after UTF-8 repair, before normalization)
  shortest,  // the shortest text
};
// Every policy (the CLI's --keep and Python's keep= choices, in this order).
inline constexpr KeepPolicy kKeepPolicies[] = {KeepPolicy::first, KeepPolicy::longest, KeepPolicy::shortest};
// "first", "longest", "shortest"; keep_policy(name) throws Error(errc::usage) for another name.
SIMDEX_EXPORT std::string_view keep_policy_name(KeepPolicy policy);
SIMDEX_EXPORT KeepPolicy keep_policy(std::string_view name);

struct DedupResult;

struct DedupOptions {
  DocumentOptions documents{};
  FingerprintOptions fingerprint{};
  unsigned k = kDocumentK;  // 0..32: documents whose fingerprints are within k bits are duplicates
  KeepPolicy keep = KeepPolicy::first;
  std::string index{};             // where to keep the index (its key map beside it); "" : a temporary one
  std::uint64_t memory_bytes = 0;  // 0: default_memory_bytes(); else at least 1 MiB
  // Directory of the temporary index, the sort's runs and the copy of standard input; "" : the
  // system's temporary directory.
  std::string temp_dir{};
  unsigned threads = 0;  // 0: all cores; at most 4096 are used
  // Called from the calling thread as work advances: stage name, units done, units in all (0:
  // unknown). Stages: "reading" (bytes of a file input, as it is fingerprinted; "reading files"
  // for a directory), "fingerprinting" (documents, for texts), then the index build's and
  // "clusters".
  std::function<void(std::string_view stage, std::uint64_t done, std::uint64_t total)> progress{};
  // dedup() and write_deduplicated(): called with the result once the output is written whole and
  // durable, just before it is published; an exception from it leaves no output (as a report that
  // cannot be written should: the CLI's --report is written here).
  std::function<void(const DedupResult& result)> before_publish{};
};

struct DedupMember {
  std::uint64_t document = 0;  // 0-based position among the input's documents (input order)
  std::uint64_t line = 0;      // 1-based line of the input; 0 for a directory's file
  std::uint64_t id = 0;
  IdKind id_kind = IdKind::integer;
  std::string key;  // id_kind key: the key (a directory: the path); else empty
  std::uint64_t fingerprint = 0;
  std::uint64_t bytes = 0;  // length of the text
  unsigned distance = 0;    // Hamming distance to the kept member's fingerprint
};

struct DedupCluster {
  std::vector<DedupMember> members;  // two or more, in input order
  std::size_t kept = 0;              // members[kept] is the document kept
};

struct SIMDEX_EXPORT DedupResult {
  std::uint64_t documents = 0;         // in the input
  std::uint64_t removed = 0;           // documents dropped: members of clusters but their kept ones
  std::vector<DedupCluster> clusters;  // in input order of their first members
  // Documents whose fingerprint is 0, ascending (positions): a text without words (emoji,
  // punctuation, an empty text: spec/FINGERPRINT.md step 5) has that fingerprint whatever it holds,
  // so these are kept and compared with nothing. (A text of a few words may get 0 too, rarely.)
  std::vector<std::uint64_t> without_words;
  DocumentFormat format = DocumentFormat::jsonl;  // the format the input was read as
  unsigned k = 0;
  KeepPolicy keep = KeepPolicy::first;
  // Documents not kept, ascending (positions among the input's documents).
  std::vector<std::uint64_t> removed_documents() const;
};

// Finds the clusters of near-duplicates of `input` (a file, "-" for standard input, or a directory;
// standard input and any other input that is neither a regular file nor a directory, a pipe or a
// device, is copied to a temporary file first) and picks the document each keeps.
SIMDEX_EXPORT DedupResult find_duplicates(const std::string& input, const DedupOptions& options);

// Texts handed over in batches, for callers that hold their documents (Python's simdex.dedup):
// each call fills `batch` (empty on entry) with the next texts, which stay valid until the next
// call; a call that adds none ends the input.
using TextBatches = std::function<void(std::vector<std::string_view>& batch)>;

// find_duplicates over texts: document i is the i-th text, with id i (IdKind::line) and line i + 1,
// as if the texts were the lines of a JSON Lines file of {"text": ...} records without ids (the
// answers are that file's). options.documents does not apply.
SIMDEX_EXPORT DedupResult find_duplicates(const TextBatches& texts, const DedupOptions& options);

// Writes `input` without the documents `result` drops to `output`, atomically ("-": standard
// output; a FIFO or a device such as /dev/null is written as it is). JSON Lines and plain lines: the kept
// lines byte for byte, in input order (blank lines of JSON Lines, which are no documents, are left out; a
// last line without a newline gets one); compressed with gzip or zstd when `output` ends in .gz or .zst. A
// directory: the kept files' paths relative to it, one a line, escaped as spec/KEYS.md escapes keys. `result`
// must come from find_duplicates on the same input with the same options; an input that can be read only once
// (standard input, a pipe) is refused with Error(usage).
SIMDEX_EXPORT void write_deduplicated(const std::string& input, const DedupResult& result,
                                      const std::string& output, const DedupOptions& options);

// find_duplicates then write_deduplicated, `output` opened first (a path that cannot be written
// fails before the work); standard input and pipes are read once (copied to a temporary file). A regular file
// replaced or written to while it is read (its inode, size or modification time changed between the first
// read and the end of the second) is Error(input), and nothing is published (a FIFO or device has what
// reached it).
SIMDEX_EXPORT DedupResult dedup(const std::string& input, const std::string& output,
                                const DedupOptions& options);

}  // namespace simdex
