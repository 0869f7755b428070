#include "cli/pair_input.h"

#include <algorithm>

#include "cli/lines.h"
#include "cli/parallel_pair_lines.h"
#include "format/thread_count.h"
#include "io/input_stream.h"

namespace simdex::cli {

PendingKeyMap for_each_input_pair(const std::string& input, bool text, const TextOptions& text_options,
                                  uint64_t memory, const std::string& key_map_beside, Progress& progress,
                                  const std::function<void(uint64_t, uint64_t)>& add) {
  if (text) {
    TextOptions options = text_options;  // a document line is held whole (and parsed): keep it in the bound
    options.max_line_bytes = std::min<uint64_t>(options.max_line_bytes, memory / 4);
    return for_each_text_fingerprint(
        input, options, key_map_beside,
        [&](uint64_t id, uint64_t fp, std::optional<std::string_view>) { add(fp, id); }, &progress,
        "reading");
  }
  io::InputStream in(input);
  // Parsing a file's lines is the CPU's work: threads beyond the cores only wake each other.
  const unsigned threads = format::cpu_bound_threads(text_options.threads);
  if (threads > 1 && in.plain_file())
    for_each_pair_line_parallel(in, threads, memory, progress, "reading", add);
  else
    for_each_pair_line(in, progress, "reading", add);
  return {};
}

void for_each_query(const std::string& queries, bool text, const TextOptions& text_options,
                    const std::string& index, Progress& progress, const QueryFn& fn) {
  if (text) {
    refuse_key_map_over(text_options.paths_file, index);
    for_each_text_fingerprint(
        queries, text_options, "",
        [&](uint64_t id, uint64_t fp, std::optional<std::string_view> key) { fn(fp, id, key); }, &progress,
        "join: reading")
        .commit();  // --key-map FILE: the queries' keys, beside no output
    return;
  }
  io::InputStream in(queries);
  for_each_pair_line(in, progress, "join: reading",
                     [&](uint64_t fp, uint64_t id) { fn(fp, id, std::nullopt); });
}

}  // namespace simdex::cli
