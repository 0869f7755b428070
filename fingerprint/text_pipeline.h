// Fingerprints a stream of texts on many threads while the caller goes on reading: texts are
// gathered into a batch (copied), a full batch is fingerprinted by fingerprint_all in the background
// while the next one fills, and the answers are handed back in input order, on the caller's thread.
// With one thread everything runs on the caller's thread, as a plain loop over a Fingerprinter would.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <future>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "format/run_tasks.h"
#include "simdex/fingerprint.h"

namespace simdex {

class TextPipeline {
 public:
  using Emit = std::function<void(std::uint64_t tag, std::uint64_t fingerprint)>;
  // Throws Error(usage) for options out of range. A batch closes at `batch_bytes` of text (or at a
  // text of its own when one is larger): two batches are held at once.
  TextPipeline(const FingerprintOptions& options, unsigned threads, Emit emit,
               std::size_t batch_bytes = std::size_t{4} << 20);
  ~TextPipeline();  // waits for a batch in the background; emits nothing more
  TextPipeline(const TextPipeline&) = delete;
  TextPipeline& operator=(const TextPipeline&) = delete;

  // emit(tag, fingerprint of text) follows, in the order of add(), by the time finish() returns.
  void add(std::string_view text, std::uint64_t tag);
  // Fingerprints and emits everything added. Rethrows a background batch's error.
  void finish();

 private:
  struct Batch {
    std::string text;               // the texts, one after another
    std::vector<std::size_t> ends;  // where each text ends in `text`
    std::vector<std::uint64_t> tags, fingerprints;
    void clear();
    void fingerprint(const FingerprintOptions& options,
                     std::vector<std::optional<Fingerprinter>>& fingerprinters, format::TaskPool& pool);
  };
  void wait_and_emit();  // the batch in the background, if any

  FingerprintOptions options_;
  unsigned threads_;
  Emit emit_;
  std::size_t batch_bytes_;
  Fingerprinter serial_;                                      // threads_ == 1
  std::vector<std::optional<Fingerprinter>> fingerprinters_;  // one a worker, kept from batch to batch
  format::TaskPool pool_;                                     // the workers, kept from batch to batch
  Batch filling_, working_;
  std::future<void> pending_;  // fingerprints working_
};

}  // namespace simdex
