// simdex info: what an index holds and how compactly.
#include <cmath>

#include "cli/commands.h"
#include "cli/index_input.h"
#include "cli/output.h"
#include "simdex/index.h"

namespace simdex::cli {

namespace {
struct InfoArgs {
  std::string index;
  bool json = false;
};

// FINGERPRINT_SETTINGS as JSON (spec/FORMAT.md §5.2's names), null when the index records none.
void append_settings_json(Output& out, const std::optional<FingerprintSettings>& s) {
  if (!s) return out.print("null");
  out.print(R"({{"fingerprint_version":{},"shingle_size":{},"weighting":"{}","stopwords":[)",
            s->fingerprint_version, s->shingle_size,
            s->weighting == Weighting::binary ? "binary" : "frequency");
  for (std::size_t w = 0; w < s->stopwords.size(); ++w) {
    if (w) out.print(",");
    append_json_string(out.buffer(), s->stopwords[w]);
  }
  out.print("]}}");
}

void run_info(const InfoArgs& a) {
  const IndexInfo i = IndexInput(a.index)->info();
  uint64_t table_bytes = 0;
  for (const auto& t : i.tables) table_bytes += t.bytes;
  const double n = static_cast<double>(i.fingerprint_count);
  const double mean = i.tables.empty() || n == 0
                          ? 0
                          : static_cast<double>(table_bytes) * 8 / n / static_cast<double>(i.tables.size());
  Output out;
  if (a.json) {  // the spec's field names (FORMAT.md §3)
    auto& b = out.buffer();
    fmt::format_to(fmt::appender(b), R"({{"format":"{}.{}","scheme_name":)", i.version_major,
                   i.version_minor);
    append_json_string(b, i.scheme_name);
    out.print(R"(,"max_distance":{},"fingerprint_count":{},"id_count":{},"block_bytes":{},"file_bytes":{},)",
              i.max_distance, i.fingerprint_count, i.id_count, i.block_bytes, i.file_bytes);
    // A string, as fingerprints are: a JSON number loses 64-bit values in many readers.
    out.print(R"("{}":"0x{:016x}",)", i.is_set ? "manifest_checksum" : "header_checksum", i.checksum);
    out.print(R"("ids_bytes":{},"floor_bits_per_entry":{:.4f},"mean_bits_per_entry":{:.4f},"tables":[)",
              i.ids_bytes, i.floor_bits_per_entry, mean);
    for (std::size_t t = 0; t < i.tables.size(); ++t)
      out.print(
          R"({}{{"prefix_bits":{},"blocks":{},"bytes":{},"bits_per_entry":{:.4f},"directory_bits":{}}})",
          t ? "," : "", i.tables[t].prefix_bits, i.tables[t].block_count, i.tables[t].bytes,
          i.tables[t].bits_per_entry, i.tables[t].directory_bits);
    out.print(R"(],"tagged_sections":[)");
    for (std::size_t t = 0; t < i.tagged_sections.size(); ++t) {
      const auto& ts = i.tagged_sections[t];
      out.print(R"({}{{"tag":{},"name":"{}","critical":{},"bytes":{}}})", t ? "," : "", ts.tag, ts.name,
                ts.critical, ts.bytes);
    }
    out.print(R"(],"fingerprint_settings":)");
    append_settings_json(out, i.fingerprint_settings);
    if (i.fingerprint_settings_differ) out.print(R"(,"fingerprint_settings_differ":true)");
    if (i.is_set) {  // spec/SET.md's names
      out.print(R"(,"generation":{},"tombstone_count":{},"removed_ids":{},"members":[)", i.generation,
                i.tombstone_count, i.removed_ids);
      for (std::size_t m = 0; m < i.members.size(); ++m) {
        out.print(R"({}{{"name":)", m ? "," : "");
        append_json_string(out.buffer(), i.members[m].name);
        out.print(R"(,"generation":{},"fingerprint_count":{},"id_count":{},"file_bytes":{}}})",
                  i.members[m].generation, i.members[m].fingerprint_count, i.members[m].id_count,
                  i.members[m].file_bytes);
      }
      out.print("]");
    }
    out.print("}}\n");
    return out.close();
  }
  out.print("index          {}\n", printable(a.index));
  out.print("format         {}.{}\n", i.version_major, i.version_minor);
  if (i.is_set)  // a set's tables are its members'
    out.print("scheme         {} (k = {})\n", printable(i.scheme_name), i.max_distance);
  else
    out.print("scheme         {} ({} table{}, k = {})\n", printable(i.scheme_name), i.tables.size(),
              plural_s(i.tables.size()), i.max_distance);
  out.print("fingerprints   {} distinct\n", i.fingerprint_count);
  out.print("ids            {} (fingerprint, id) pairs\n", i.id_count);
  out.print("block size     {} bytes\n", i.block_bytes);
  out.print("checksum       0x{:016x} ({})\n", i.checksum,
            i.is_set ? "manifest_checksum" : "header_checksum");
  out.print("file size      {} bytes ({:.2f} bytes per fingerprint; ids {} bytes)\n", i.file_bytes,
            n > 0 ? static_cast<double>(i.file_bytes) / n : 0.0, i.ids_bytes);
  out.print("text settings  {}\n",
            i.fingerprint_settings ? describe(*i.fingerprint_settings)
            : i.fingerprint_settings_differ
                ? std::string("differ between members (queries by text refuse the set)")
                : std::string("none recorded (built from fingerprints, or format 1.x)"));
  for (const auto& ts : i.tagged_sections)
    out.print("tagged section tag {} {} ({} bytes{})\n", ts.tag, ts.name.empty() ? "(unknown)" : ts.name,
              ts.bytes, ts.critical ? ", critical" : "");
  if (!i.is_set)
    out.print(
        "bits/entry     {:.2f} per table on average; floor for a random set, log2 C(2^64, n)/n = {:.2f} "
        "({:+.2f})\n",
        mean, i.floor_bits_per_entry, mean - i.floor_bits_per_entry);
  if (i.is_set) {  // spec/SET.md: the members instead of tables
    out.print("set            generation {}, {} tombstone file(s) removing {} id(s)\n", i.generation,
              i.tombstone_count, i.removed_ids);
    out.print("\n{:>18}  {:>12}  {:>12}  {:>14}  {}\n", "generation", "fingerprints", "ids", "bytes",
              "member");
    for (const auto& m : i.members)
      out.print("{:>18}  {:>12}  {:>12}  {:>14}  {} ({}, {} tables)\n", m.generation, m.fingerprint_count,
                m.id_count, m.file_bytes, printable(m.name), printable(m.scheme_name), m.table_count);
    return out.close();
  }
  // `directory`: the bits of the table's BLOCK_DIRECTORY slots, "-" without one (probes search the keys).
  out.print("\n{:>5}  {:>6}  {:>10}  {:>14}  {:>10}  {:>9}\n", "table", "prefix", "blocks", "bytes",
            "bits/entry", "directory");
  for (std::size_t t = 0; t < i.tables.size(); ++t)
    out.print("{:>5}  {:>6}  {:>10}  {:>14}  {:>10.2f}  {:>9}\n", t, i.tables[t].prefix_bits,
              i.tables[t].block_count, i.tables[t].bytes, i.tables[t].bits_per_entry,
              i.tables[t].directory_bits ? std::to_string(i.tables[t].directory_bits) : "-");
  out.close();
}
}  // namespace

void add_info_command(CLI::App& app) {
  auto args = std::make_shared<InfoArgs>();
  auto* cmd = app.add_subcommand("info", "Show an index's scheme, counts, sizes and bits per entry");
  cmd->footer(
      "bits/entry counts each table's blocks, block keys and block ranks (padding included) per\n"
      "distinct fingerprint; the floor log2 C(2^64, n)/n is what any encoding of a set of n distinct\n"
      "64-bit values needs on average. checksum identifies the index: a file's header_checksum (a hash\n"
      "of its header region, which holds every section's XXH3-64), a set's manifest_checksum; two\n"
      "good files with the same checksum hold the same bytes.\n\n"
      "Examples: simdex info docs.sdx\n"
      "          simdex info --json docs.sdxs        # an index set: its members and removed ids too");
  cmd->add_option("index", args->index, "Index file, or - to read it from stdin")->required();
  cmd->add_flag("--json", args->json, "One JSON object");
  cmd->callback([args] { run_info(*args); });
}

}  // namespace simdex::cli
