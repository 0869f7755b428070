// A shared object (as a Python extension module would be) that links the static library: it links
// only if libsimdex.a is position-independent code.
#include <simdex/simdex.h>

extern "C" unsigned long long simdex_consumer_count(const char* path) {
  return simdex::Index::open(path).fingerprint_count();
}
