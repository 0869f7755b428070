// The input of `build` and `add`: (fingerprint, id) lines, or with --text documents fingerprinted
// first. One reading loop for both commands, so their input rules stay the same.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "cli/progress.h"
#include "cli/text_options.h"

namespace simdex::cli {

// Calls add(fingerprint, id) for every pair of `input` ("-": stdin), showing the input read on
// `progress`, on text_options.threads threads (0: all cores) where the input is a plain file. `memory`:
// the command's memory bound (a document line is held whole); `key_map_beside`:
// with --text, the key map of the documents' keys goes beside this path ("": only to --key-map),
// returned to be committed once the output is published.
[[nodiscard]] PendingKeyMap for_each_input_pair(const std::string& input, bool text,
                                                const TextOptions& text_options, uint64_t memory,
                                                const std::string& key_map_beside, Progress& progress,
                                                const std::function<void(uint64_t, uint64_t)>& add);

// The queries of `join` ("-": stdin): fingerprint lines, or with `text` documents fingerprinted as
// `simdex fingerprint` does, to fn(fingerprint, id, key) in input order; `key` is a document's key
// (spec/KEYS.md), nothing for fingerprint lines and for documents with integer ids or line numbers.
using QueryFn = std::function<void(uint64_t fingerprint, uint64_t id, std::optional<std::string_view> key)>;
// `index`: the index or set they query, which --key-map must not replace (refuse_key_map_over).
void for_each_query(const std::string& queries, bool text, const TextOptions& text_options,
                    const std::string& index, Progress& progress, const QueryFn& fn);

}  // namespace simdex::cli
