// A program that uses simdex the way an adopter does, through the public headers only: builds an
// index of five fingerprints, queries it, fingerprints a text, and prints what it found. The consumer
// tests (tests/consumer/run.sh) build it against an installed tree, a .deb or the source tree, run it
// and check the last line.
#include <simdex/batch.h>
#include <simdex/dedup.h>
#include <simdex/documents.h>
#include <simdex/fingerprint.h>
#include <simdex/keys.h>
#include <simdex/simdex.h>

#include <cstdio>
#include <cstring>
#include <string>

// Every options struct set by designated initializers, as the headers and README write them: the
// pkg-config build compiles this file with -Wall -Wextra -Werror, where GCC's missing-field-initializers
// flagged each member without a default member initializer.
[[maybe_unused]] static bool designated_initializers_compile() {
  const simdex::BuildOptions build{.k = 3};
  const simdex::OpenOptions open{.detect_changes = false};
  const simdex::BatchOptions batch{.k = 2};
  const simdex::ClusterOptions clusters{.min_size = 3};
  const simdex::SetWriterOptions set{.wait_for_lock = false};
  const simdex::FingerprintOptions fingerprint{.shingle_size = 2};
  const simdex::DocumentOptions documents{.max_line_bytes = 1 << 20};
  const simdex::DedupOptions dedup{.k = 5};
  return build.k + batch.k + clusters.min_size + fingerprint.shingle_size + dedup.k > 0 &&
         !open.detect_changes && !set.wait_for_lock && documents.max_line_bytes > 0;
}

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: simdex_consumer INDEX_PATH\n");
    return 2;
  }
  const std::string path = argv[1];
  // The header compiled against and the library linked must be the same version.
  if (std::strcmp(simdex::version(), SIMDEX_VERSION_STRING) != 0) {
    std::fprintf(stderr, "header %s, library %s\n", SIMDEX_VERSION_STRING, simdex::version());
    return 1;
  }
  simdex::IndexBuilder builder({.k = 3});
  const uint64_t base = 0x1f2e3d4c5b6a7988;
  builder.add(base, 42);
  builder.add(base ^ 0x1, 43);          // 1 bit away
  builder.add(base ^ 0x7, 44);          // 3 bits away
  builder.add(base ^ 0xf, 45);          // 4 bits away: not a hit at k = 3
  builder.add(0x0123456789abcdef, 46);  // far away
  builder.write(path);

  const auto index = simdex::Index::open(path);
  unsigned long long id_sum = 0;
  std::size_t hits = 0;
  for (const simdex::Hit& hit : index.query(base, 3)) {
    for (uint64_t id : hit.ids) {
      std::printf("hit %016llx distance %u id %llu\n", static_cast<unsigned long long>(hit.fingerprint),
                  hit.distance, static_cast<unsigned long long>(id));
      id_sum += id;
    }
    ++hits;
  }
  std::size_t pairs = 0;
  simdex::find_pairs(index, {}, [&](std::span<const simdex::NearPair> batch) { pairs += batch.size(); });
  const bool verified = index.verify().ok();

  bool error_caught = false;  // a simdex::Error thrown in the library is caught here by its type
  try {
    (void)simdex::Index::open(path + ".missing");
  } catch (const simdex::Error& e) {
    error_caught = e.code() == simdex::errc::io;
  }

  // The text part: the same text gives the same fingerprint, a different one another.
  const bool text_ok =
      simdex::fingerprint("the quick brown fox jumps over the lazy dog") ==
          simdex::Fingerprinter().fingerprint("The quick brown fox jumps over the lazy dog") &&
      simdex::fingerprint("a b c d") != simdex::fingerprint("w x y z");

  const bool ok = hits == 3 && id_sum == 42 + 43 + 44 && pairs == 5 && verified && error_caught && text_ok;
  std::printf("simdex %s: %zu hits, ids sum %llu, %zu pairs, verify %s, error %s, text %s: %s\n",
              simdex::version(), hits, id_sum, pairs, verified ? "ok" : "FAILED",
              error_caught ? "caught" : "NOT CAUGHT", text_ok ? "ok" : "FAILED",
              ok ? "CONSUMER OK" : "CONSUMER FAILED");
  return ok ? 0 : 1;
}
