// FINGERPRINT[<TAB>ID] lines of a plain file parsed on several threads (build and add of a large
// file: parsing was their serial part).
#pragma once

#include <cstdint>
#include <functional>
#include <string_view>

#include "cli/progress.h"
#include "io/input_stream.h"

namespace simdex::cli {

// As for_each_pair_line, with the parsing on `threads` threads: `in` (in.plain_file(), nothing read
// yet) is read in blocks cut at line ends, each block split into a range per thread, the ranges
// counted (lines) then parsed at once, and the pairs handed to fn in input order (on the calling
// thread, while the workers read and parse the next block). Ids taken from
// line numbers and the line an error names are those of the serial reader (the first bad line of
// the file). The block and its pairs take at most 9/128 of `memory` (the command's bound).
void for_each_pair_line_parallel(io::InputStream& in, unsigned threads, uint64_t memory, Progress& progress,
                                 std::string_view stage,
                                 const std::function<void(uint64_t fingerprint, uint64_t id)>& fn);

}  // namespace simdex::cli
