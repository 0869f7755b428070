#include "cli/pair_input.h"

#include <algorithm>

#include "cli/lines.h"
#include "io/input_stream.h"

namespace simdex::cli {

void for_each_input_pair(const std::string& input, bool text, const TextOptions& text_options,
                         uint64_t memory, const std::string& output,
                         const std::function<void(uint64_t, uint64_t)>& add) {
  if (text) {
    TextOptions options = text_options;  // a document line is held whole (and parsed): keep it in the bound
    options.max_line_bytes = std::min<uint64_t>(options.max_line_bytes, memory / 4);
    for_each_text_fingerprint(input, options, output, [&](uint64_t id, uint64_t fp) { add(fp, id); });
    return;
  }
  io::InputStream in(input);
  PairReader reader(in.name());
  std::string line;
  while (in.next_line(line))
    if (auto pair = reader.parse(line)) add(pair->first, pair->second);
}

}  // namespace simdex::cli
