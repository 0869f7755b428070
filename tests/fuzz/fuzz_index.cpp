// libFuzzer targets over whole index files. One source, four targets, chosen by SIMDEX_FUZZ_TARGET:
//   1 open + info, 2 open + query, 3 open + verify. (The block decoder alone: fuzz_block.cpp.)
// A target passes when every input either opens or throws simdex::Error: anything else (a crash,
// an out-of-bounds read under ASan, undefined behaviour under UBSan, another exception) is a bug.
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "format/endian.h"
#include "simdex/index.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
  try {
    const simdex::Index index = simdex::Index::from_buffer(data, size);
#if SIMDEX_FUZZ_TARGET == 1
    (void)index.info();
#elif SIMDEX_FUZZ_TARGET == 2
    // Queries near what the file holds (its middle bytes) and at the extremes, at the largest k
    // and below it (where only some tables are read: IndexFile::tables_within).
    uint64_t middle = 0;
    if (size >= 16) middle = simdex::format::load_le64(data + (size / 2 & ~std::size_t{7}));
    const unsigned most = index.max_distance();
    for (unsigned k : {most, most / 2, 0u})
      for (uint64_t q : {uint64_t{0}, ~uint64_t{0}, middle, middle ^ 0x8001, uint64_t{0x5555555555555555}})
        for (const auto& hit : index.query(q, k))
          for (uint64_t id : hit.ids) (void)id;
#elif SIMDEX_FUZZ_TARGET == 3
    (void)index.verify();
#else
#error "SIMDEX_FUZZ_TARGET must be 1, 2 or 3"
#endif
  } catch (const simdex::Error&) {
  }
  return 0;
}
