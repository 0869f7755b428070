// The input of `build` and `add`: (fingerprint, id) lines, or with --text documents fingerprinted
// first. One reading loop for both commands, so their input rules stay the same.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include "cli/text_options.h"

namespace simdex::cli {

// Calls add(fingerprint, id) for every pair of `input` ("-": stdin). `memory`: the command's memory
// bound (a document line is held whole); `output`: the path written, which --text refuses as input.
void for_each_input_pair(const std::string& input, bool text, const TextOptions& text_options,
                         uint64_t memory, const std::string& output,
                         const std::function<void(uint64_t, uint64_t)>& add);

}  // namespace simdex::cli
