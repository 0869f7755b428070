// `simdex query --serve`: a long-lived process that answers query lines from stdin one at a time,
// for another program driving it through pipes (a co-process).
#pragma once

#include <string>

#include "cli/keys_option.h"
#include "cli/output_style.h"
#include "simdex/index.h"

namespace simdex::cli {

// Reads one fingerprint a line from stdin and answers each line as soon as it is complete: its hits
// as `simdex query` prints them and then one empty line, or with style.json one line
// {"query":Q,"hits":[...]}, flushed at once, an empty answer too. A line that is not a fingerprint
// gets an answer as well (text: the message on stderr and the empty line; JSON: {"query":"LINE",
// "error":"..."}) and serving goes on. SIGHUP reopens `index_path` (Index::open again: a new file
// renamed over it is served from the next query on); when that fails, the index open before is kept
// and the reason goes to stderr. Ends at the end of stdin. With --keys (`keys`), ids are printed as
// their keys, from the key map opened (and reopened on SIGHUP) with the index.
void serve_queries(const std::string& index_path, int k, const OutputStyle& style, const KeysArg& keys,
                   const OpenOptions& open_options = {});

}  // namespace simdex::cli
