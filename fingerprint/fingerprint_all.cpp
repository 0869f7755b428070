// Many texts on many threads: workers take chunks of the input in turn, each with its own
// Fingerprinter (its scratch buffers are not shared), and write their answers in place.
#include <algorithm>
#include <atomic>
#include <exception>
#include <mutex>
#include <optional>
#include <string>
#include <system_error>
#include <thread>
#include <vector>

#include "format/thread_count.h"
#include "simdex/error.h"
#include "simdex/fingerprint.h"

namespace simdex {

void fingerprint_all(std::span<const std::string_view> texts, std::span<std::uint64_t> out,
                     const FingerprintOptions& options, unsigned threads) {
  if (out.size() != texts.size())
    throw Error(errc::usage, "fingerprint_all: " + std::to_string(texts.size()) + " texts but room for " +
                                 std::to_string(out.size()) + " fingerprints");
  Fingerprinter first(options);  // checks the options before any thread starts
  // Chunks small enough to balance uneven texts, large enough that the counter is not contended.
  constexpr std::size_t chunk = 64;
  const std::size_t chunks = (texts.size() + chunk - 1) / chunk;
  const unsigned workers = static_cast<unsigned>(
      std::min<std::size_t>(format::thread_count(threads), std::max<std::size_t>(chunks, 1)));
  std::atomic<std::size_t> next{0};
  std::atomic<bool> failed{false};
  std::exception_ptr error;
  std::mutex error_lock;
  // A worker with no Fingerprinter given makes its own (on its thread: its buffers stay there).
  auto work = [&](Fingerprinter* given) {
    try {
      std::optional<Fingerprinter> own;
      Fingerprinter& f = given ? *given : own.emplace(options);
      for (std::size_t c; !failed && (c = next.fetch_add(1)) < chunks;) {
        const std::size_t end = std::min(texts.size(), (c + 1) * chunk);
        for (std::size_t i = c * chunk; i < end; ++i) out[i] = f.fingerprint(texts[i]);
      }
    } catch (...) {
      std::lock_guard g(error_lock);
      if (!error) error = std::current_exception();
      failed = true;
    }
  };
  // The calling thread is one of the workers; when no more threads can be started (a process
  // limit), those started share the work.
  std::vector<std::thread> pool;
  try {
    while (pool.size() + 1 < workers) pool.emplace_back(work, nullptr);
  } catch (const std::system_error&) {
  }
  work(&first);
  for (auto& t : pool) t.join();
  if (error) std::rethrow_exception(error);
}

}  // namespace simdex
