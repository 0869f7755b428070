// How `simdex query` prints its answers, shared by the one-shot and the --serve modes.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "cli/output.h"
#include "cli/output_style.h"
#include "simdex/index.h"
#include "simdex/keys.h"

namespace simdex::cli {

// One hit, one line: [QUERY_ID<TAB>]QUERY<TAB>FINGERPRINT<TAB>DISTANCE<TAB>ID[,ID...], or with --json
// {["query_id":I,]"query":Q,"fingerprint":F,"distance":D,"ids":[...]}. `query_id`: --text queries.
// With `keys` (--keys), the ids are printed as their keys, and QUERY_ID as `query_key` if there is one.
void print_hit(Output& out, std::optional<uint64_t> query_id, uint64_t query, const Hit& hit,
               const OutputStyle& style, const MappedKeyMap* keys = nullptr,
               std::optional<std::string_view> query_key = std::nullopt);

// One query's answer as one JSON line: {"query":Q,"hits":[{"fingerprint":F,"distance":D,"ids":[...]},...]}.
void print_answer_json(Output& out, uint64_t query, const std::vector<Hit>& hits, const OutputStyle& style,
                       const MappedKeyMap* keys = nullptr);

// A query fingerprint (decimal or 0x-hex); throws Error(input) naming `where`.
uint64_t parse_query(std::string_view text, const std::string& where);

}  // namespace simdex::cli
