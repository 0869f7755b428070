// Many texts on many threads: workers take chunks of the input in turn, each with its own
// Fingerprinter (its scratch buffers are not shared), and write their answers in place.
#include "fingerprint/fingerprint_all.h"

#include <algorithm>
#include <atomic>
#include <optional>
#include <string>
#include <vector>

#include "format/run_tasks.h"
#include "format/thread_count.h"
#include "simdex/error.h"
#include "simdex/fingerprint.h"

namespace simdex {

namespace {
// Texts a task: small enough to balance uneven texts, large enough that the counter is not contended.
constexpr std::size_t kChunk = 64;
std::size_t chunk_count(std::size_t texts) { return (texts + kChunk - 1) / kChunk; }
}  // namespace

void fingerprint_all_with(std::span<const std::string_view> texts, std::span<std::uint64_t> out,
                          const FingerprintOptions& options,
                          std::vector<std::optional<Fingerprinter>>& fingerprinters, format::TaskPool& pool) {
  pool.run(chunk_count(texts.size()), [&](std::size_t c, unsigned w, std::atomic<uint64_t>&) {
    Fingerprinter& f = fingerprinters[w] ? *fingerprinters[w] : fingerprinters[w].emplace(options);
    const std::size_t end = std::min(texts.size(), (c + 1) * kChunk);
    for (std::size_t i = c * kChunk; i < end; ++i) out[i] = f.fingerprint(texts[i]);
  });
}

void fingerprint_all(std::span<const std::string_view> texts, std::span<std::uint64_t> out,
                     const FingerprintOptions& options, unsigned threads) {
  if (out.size() != texts.size())
    throw Error(errc::usage, "fingerprint_all: " + std::to_string(texts.size()) + " texts but room for " +
                                 std::to_string(out.size()) + " fingerprints");
  std::vector<std::optional<Fingerprinter>> fingerprinters(format::thread_count(threads));
  fingerprinters[0].emplace(options);  // checks the options before any thread starts
  // No more workers than chunks of texts.
  format::TaskPool pool(static_cast<unsigned>(
      std::min<std::size_t>(fingerprinters.size(), std::max<std::size_t>(chunk_count(texts.size()), 1))));
  fingerprint_all_with(texts, out, options, fingerprinters, pool);
}

}  // namespace simdex
