// How the batch commands print one result: a join hit, a near pair, a cluster. One place, so that
// `simdex join/pairs/clusters` and `simdex-mpi join/pairs/clusters` print the same lines.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "cli/output.h"
#include "cli/output_style.h"
#include "simdex/batch.h"
#include "simdex/keys.h"

namespace simdex::cli {

// QUERY_ID<TAB>QUERY_FP<TAB>FINGERPRINT<TAB>DISTANCE<TAB>IDS, or its JSON object with style.json;
// with --keys, IDS as keys (`keys`) and QUERY_ID as `query_key` if there is one.
void print_hit(Output& out, const JoinHit& h, const OutputStyle& style, const MappedKeyMap* keys,
               std::optional<std::string_view> query_key = std::nullopt);

// What a pairs or clusters line holds: --format (tsv, json, seomoz; settled by resolve_format),
// --hex/--dec, and whether ids (or keys) are printed.
struct ResultFormat {
  std::string format = "tsv";
  OutputStyle style;
  bool ids = false;
};

// A B DISTANCE [IDS_A IDS_B] in the format's form.
void print_pair(Output& out, const NearPair& p, const ResultFormat& f, const MappedKeyMap* keys);

// One cluster: its fingerprints, or (f.ids) its ids / keys.
void print_cluster(Output& out, const std::vector<uint64_t>& values, const ResultFormat& f,
                   const MappedKeyMap* keys);

// --stats: a line per table on stderr (blocks decoded, results first found there, or that a
// search below the index's k left it out), `what` naming the results ("hits", "pairs").
void print_table_stats(const BatchStats& stats, std::string_view what);

}  // namespace simdex::cli
