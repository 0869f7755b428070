#include "cli/batch_output.h"

#include "cli/keys_option.h"

namespace simdex::cli {

void print_hit(Output& out, const JoinHit& h, const OutputStyle& style, const MappedKeyMap* keys,
               std::optional<std::string_view> query_key) {
  auto& b = out.buffer();
  const bool json = style.json;
  b.append(std::string_view(json ? R"({"query_id":)" : ""));
  append_query_id(b, h.query_id, query_key, json);
  b.append(std::string_view(json ? R"(,"query":)" : "\t"));
  append_fingerprint(b, h.query_fingerprint, style);
  b.append(std::string_view(json ? R"(,"fingerprint":)" : "\t"));
  append_fingerprint(b, h.fingerprint, style);
  if (json)
    fmt::format_to(fmt::appender(b), R"(,"distance":{},"ids":[)", h.distance);
  else
    fmt::format_to(fmt::appender(b), "\t{}\t", h.distance);
  append_ids(out, h.ids, keys, json);
  out.print("{}\n", json ? "]}" : "");
}

void print_pair(Output& out, const NearPair& p, const ResultFormat& f, const MappedKeyMap* keys) {
  auto& b = out.buffer();
  if (f.format == "seomoz") {
    // seomoz/simhash-cpp src/bin/simhash-find-all.cpp, write_matches():
    //   stream << "[" << it->first << ", " << it->second << "]\n";  (decimal, smaller first: find_all)
    out.print("[{}, {}]\n", p.a, p.b);
    return;
  }
  if (f.format == "json") {
    b.append(std::string_view(R"({"a":)"));
    append_fingerprint(b, p.a, f.style);
    b.append(std::string_view(R"(,"b":)"));
    append_fingerprint(b, p.b, f.style);
    fmt::format_to(fmt::appender(b), R"(,"distance":{})", p.distance);
    if (f.ids || keys) {
      b.append(std::string_view(keys ? R"(,"keys_a":[)" : R"(,"ids_a":[)"));
      append_ids(out, p.ids_a, keys, true);
      b.append(std::string_view(keys ? R"(],"keys_b":[)" : R"(],"ids_b":[)"));
      append_ids(out, p.ids_b, keys, true);
      b.push_back(']');
    }
    out.print("}}\n");
    return;
  }
  append_fingerprint(b, p.a, f.style);
  b.push_back('\t');
  append_fingerprint(b, p.b, f.style);
  fmt::format_to(fmt::appender(b), "\t{}", p.distance);
  if (f.ids || keys) {
    b.push_back('\t');
    append_ids(out, p.ids_a, keys, false);
    b.push_back('\t');
    append_ids(out, p.ids_b, keys, false);
  }
  out.print("\n");
}

void print_cluster(Output& out, const std::vector<uint64_t>& values, const ResultFormat& f,
                   const MappedKeyMap* keys) {
  auto& b = out.buffer();
  // seomoz/simhash-cpp src/bin/simhash-find-clusters.cpp, write_clusters():
  //   stream << "[" << *(it++); ... stream << ", " << *it; ... stream << "]\n";
  // and its find_clusters (src/simhash.cpp) only holds fingerprints with a match: sizes >= 2.
  const char* sep = f.format == "seomoz" ? ", " : ",";
  if (f.format == "seomoz") b.push_back('[');
  if (f.format == "json")
    fmt::format_to(fmt::appender(b), R"({{"size":{},"{}":[)", values.size(),
                   keys    ? "keys"
                   : f.ids ? "ids"
                           : "fingerprints");
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (i) b.append(std::string_view(sep));
    if (keys)
      append_key(b, *keys, values[i], f.format == "json");
    else if (f.ids)
      append_decimal(b, values[i]);
    else
      append_fingerprint(b, values[i], f.style);
    out.maybe_flush();
  }
  out.print("{}\n", f.format == "seomoz" ? "]" : f.format == "json" ? "]}" : "");
}

void print_table_stats(const BatchStats& stats, std::string_view what) {
  for (std::size_t t = 0; t < stats.tables.size(); ++t) {
    const BatchTableStats& s = stats.tables[t];
    if (s.read)
      fmt::print(stderr, "table {}: {} of {} blocks decoded, {} {} first found here\n", t, s.blocks_decoded,
                 s.blocks, s.results, what);
    else
      fmt::print(stderr, "table {}: not read (an earlier table groups every pair within k that it groups)\n",
                 t);
  }
}

}  // namespace simdex::cli
