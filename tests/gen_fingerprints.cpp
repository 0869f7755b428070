// gen_fingerprints N [SEED [STEP]]: the input of the scale runs (scripts/scale, tests/scale_small_test.sh),
// streamed to `simdex build` so no file of N lines is needed.
//   without STEP: N pseudo-random 64-bit fingerprints, one 0x-hex line each (line i has id i);
//   with STEP:    only every STEP-th of the same N, as `INDEX<TAB>0xFINGERPRINT` (to plant queries).
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <random>

int main(int argc, char** argv) {
  if (argc < 2 || argc > 4) {
    std::fprintf(stderr,
                 "usage: gen_fingerprints N [SEED [STEP]]\n"
                 "  N random 0x-hex fingerprints on stdout (seed 1 by default); with STEP, only every\n"
                 "  STEP-th of them, as INDEX<TAB>FINGERPRINT\n");
    return 2;
  }
  const uint64_t n = std::strtoull(argv[1], nullptr, 10);
  std::mt19937_64 rng(argc >= 3 ? std::strtoull(argv[2], nullptr, 10) : 1);
  const uint64_t step = argc == 4 ? std::strtoull(argv[3], nullptr, 10) : 0;
  static const char digits[] = "0123456789abcdef";
  char buf[1 << 16];
  std::size_t used = 0;
  for (uint64_t i = 0; i < n; ++i) {
    const uint64_t v = rng();
    if (step != 0 && i % step != 0) continue;
    if (used + 48 > sizeof buf) {
      if (std::fwrite(buf, 1, used, stdout) != used) return 1;
      used = 0;
    }
    if (step != 0)
      used += static_cast<std::size_t>(
          std::snprintf(buf + used, 24, "%llu\t", static_cast<unsigned long long>(i)));
    buf[used++] = '0';
    buf[used++] = 'x';
    for (int s = 60; s >= 0; s -= 4) buf[used++] = digits[(v >> s) & 15];
    buf[used++] = '\n';
  }
  if (std::fwrite(buf, 1, used, stdout) != used) return 1;
  return std::fflush(stdout) == 0 ? 0 : 1;
}
