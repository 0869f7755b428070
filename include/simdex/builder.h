// Building an index file from (fingerprint, id) pairs.
//
//   simdex::IndexBuilder b({.k = 3});
//   b.add(0x1234abcd5678ef00, 42);
//   b.write("docs.sdx");   // atomic: temp file, fsync, rename
//
// The same set of pairs gives the same bytes, whatever the order of add() calls or the thread count.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "simdex/error.h"
#include "simdex/export.h"
#include "simdex/fingerprint.h"
#include "simdex/scheme.h"

namespace simdex {

struct BuildOptions {
  unsigned k = 3;                  // used when scheme is empty: Scheme::automatic(distinct count, k)
  std::optional<Scheme> scheme{};  // the tables; overrides k
  // Block size B: 32 .. 1 MiB, a multiple of 8. Smaller blocks mean less to decode per probe and
  // a little more file; 256 was chosen from bench/RESULTS.md ("Block size": against 1024, about
  // half the query time for about 8% more bytes).
  uint32_t block_bytes = 256;
  unsigned threads = 0;  // 0: all cores; at most 4096 are used
  // Memory bound of the build (0: default_memory_bytes()), for the peak RSS of a process whose only
  // large user of memory is the builder (the pairs added are held within it too). Beyond it the
  // builder sorts externally: sorted runs in temporary files, merged; the output bytes are the same
  // whatever the bound.
  uint64_t memory_bytes = 0;
  // Directory of those temporary files (".simdex-sort-PID-N"); empty: the system's temp directory.
  // The CLI passes the output's directory unless --tmp-dir is given.
  std::string temp_dir{};
  // Called from the writing thread as work advances: stage name, units done, units in all. It may
  // throw to stop the build: write() then throws that exception, publishes nothing and removes its
  // temporary files (the pairs are used up, as after any failed write).
  std::function<void(std::string_view stage, uint64_t done, uint64_t total)> progress{};
  // How the fingerprints were made from text, recorded in the index (spec/FORMAT.md §5.2) so that
  // queries by text with other settings are refused. nullopt (fingerprints from elsewhere): none.
  std::optional<FingerprintSettings> fingerprint_settings{};
  // How the tables and ids go to the file: through the page cache (cached), which then holds the
  // file for readers on this machine, or straight to the disk (direct, O_DIRECT): less CPU (on a
  // 2-core VM, whose fresh pages cost the most, 1.1-1.4x faster builds of 10M to 100M fingerprints),
  // the machine's cache left to its other files, and the file read from the disk by its first
  // readers (a join of 4,096 queries right after a 10M build: 2.0 s against 0.04). For a file
  // shipped to other machines. automatic: direct once the tables and ids reach a quarter of
  // physical memory, which the cache would not hold for long. Where the file system writes
  // nothing directly (tmpfs before Linux 6.6), and tables too large for the memory bound (written
  // as they are encoded), cached. The bytes are the same.
  enum class OutputWrites { automatic, cached, direct };
  OutputWrites output_writes = OutputWrites::automatic;
};

// A quarter of physical memory (sysconf), at least 64 MiB.
SIMDEX_EXPORT uint64_t default_memory_bytes();

// The OutputWrites that "auto", "on" (direct) and "off" (cached) name (the CLI's build
// --direct-io, Python's direct_io); Error(usage) for any other name.
SIMDEX_EXPORT BuildOptions::OutputWrites output_writes_named(std::string_view name);

// Installs handlers for SIGINT, SIGTERM, SIGHUP and SIGPIPE (those whose action is the default) that remove
// the temporary files of the builds in progress, then end the process by the same signal. The CLI
// calls it; without it a signal leaves the files to the next build's cleanup (spec/FORMAT.md §11).
// SIGXFSZ, where its action is the default, is ignored: a write past `ulimit -f` fails (EFBIG).
SIMDEX_EXPORT void remove_temporary_files_on_signals();

struct BuildSummary {
  uint64_t fingerprint_count = 0;  // distinct
  uint64_t id_count = 0;           // distinct (fingerprint, id) pairs
  uint64_t file_bytes = 0;
  std::string scheme_name;
  std::size_t table_count = 0;
  uint64_t temp_files = 0;       // temporary files written (0: everything was sorted in memory)
  uint64_t temp_peak_bytes = 0;  // most temporary disk space in use at once
};

struct UpgradeSummary {
  unsigned from_major = 0, from_minor = 0;  // the input's format version
  bool rewritten = false;                   // false: already format 2.2 or later, nothing changed
  uint64_t file_bytes = 0;                  // of the output
};

// Rewrites a format 1.x, 2.0 or 2.1 index file as format 2.2 (spec/FORMAT.md §12): the input is
// verified in full first (every checksum and rule), then written to `output` atomically with its
// sections unchanged and the writer's BLOCK_DIRECTORY (§5.3) made from its block keys where it had
// none or one of other d_t (a 2.1 file of more than 2^18 blocks a table), so the result is what a
// 2.2 writer writes from the same pairs. `output` may be `input` (replaced by rename: readers that
// have it open keep the old bytes). A 2.2 input with a directory is left alone (rewritten = false)
// unless output differs from input, which then gets a verified copy. Throws Error: the input's
// broken rule, errc::io.
SIMDEX_EXPORT UpgradeSummary upgrade_index(const std::string& input, const std::string& output);

class SIMDEX_EXPORT IndexBuilder {
 public:
  explicit IndexBuilder(BuildOptions options = {});
  ~IndexBuilder();
  IndexBuilder(IndexBuilder&&) noexcept;
  IndexBuilder& operator=(IndexBuilder&&) noexcept;
  void add(uint64_t fingerprint, uint64_t id);
  uint64_t pairs_added() const { return added_; }
  // write() went past its checks: the pairs are used up, whether it succeeded, failed or was stopped.
  bool used() const;
  const BuildOptions& options() const { return options_; }
  // Writes the index to `path` atomically. Throws simdex::Error; on failure `path` is untouched.
  // A builder writes once: write() uses up its pairs, and a second call (after a failed one too)
  // throws Error(usage), as add() then does. The path, its directory and a given scheme are checked
  // before the pairs are used, so a retry after those errors still has them. A moved-from builder
  // may only be assigned to or destroyed (add and write throw Error(usage)).
  BuildSummary write(const std::string& path);

 private:
  struct State;  // the pairs, sorted under the memory bound (writer/external_sorter.h)
  BuildOptions options_;
  std::unique_ptr<State> state_;
  uint64_t added_ = 0;
};

}  // namespace simdex
