// simdex dedup: a dataset in, the dataset without its near-duplicates out (simdex::dedup).
#include <chrono>
#include <filesystem>
#include <iostream>
#include <memory>
#include <optional>
#include <string>

#include "cli/commands.h"
#include "cli/lines.h"
#include "cli/output.h"
#include "cli/progress.h"
#include "cli/text_options.h"
#include "cli/threads_option.h"
#include "cli/whole_number.h"
#include "simdex/builder.h"
#include "simdex/dedup.h"
#include "simdex/error.h"

namespace simdex::cli {

namespace {

struct DedupArgs {
  std::string input = "-";
  std::string output;
  unsigned k = kDocumentK;
  std::string keep = "first";
  std::string index;   // "" : a temporary index
  std::string report;  // "" : none
  std::string memory;  // "" : default_memory_bytes()
  std::string tmp_dir;
  unsigned threads = 0;
  bool progress = false, quiet = false;
  TextOptions text;
};

void write_member(fmt::memory_buffer& b, const DedupMember& m, bool kept) {
  fmt::format_to(fmt::appender(b), R"({{"document":{},"line":{},"id":{},"key":)", m.document, m.line, m.id);
  if (m.id_kind == IdKind::key)
    append_json_string(b, m.key);
  else
    b.append(std::string_view("null"));
  fmt::format_to(fmt::appender(b), R"(,"fingerprint":"0x{:016x}","distance":{},"bytes":{},"kept":{}}})",
                 m.fingerprint, m.distance, m.bytes, kept);
}

// The report: one JSON object, the counts first, then every cluster with its members.
void write_report(Output& out, const std::string& input, const std::string& output, const DedupResult& r) {
  auto& b = out.buffer();
  b.append(std::string_view(R"({"input":)"));
  append_json_string(b, input);
  b.append(std::string_view(R"(,"output":)"));
  append_json_string(b, output);
  out.print(
      R"(,"k":{},"keep":"{}","documents":{},"kept":{},"removed":{},"without_words":{},"clusters_count":{},"clusters":[)",
      r.k, keep_policy_name(r.keep), r.documents, r.documents - r.removed, r.removed, r.without_words.size(),
      r.clusters.size());
  for (std::size_t c = 0; c < r.clusters.size(); ++c) {
    const DedupCluster& cluster = r.clusters[c];
    out.print("{}\n{{\"size\":{},\"members\":[", c ? "," : "", cluster.members.size());
    for (std::size_t i = 0; i < cluster.members.size(); ++i) {
      if (i) b.push_back(',');
      write_member(b, cluster.members[i], i == cluster.kept);
      out.maybe_flush();
    }
    out.print("]}}");
  }
  out.print("\n]}}\n");
  out.close();
}

void run_dedup(const DedupArgs& a) {
  const auto start = std::chrono::steady_clock::now();
  writer::require_target_directory(a.output);  // before the work: the message names the output
  writer::refuse_replacing_set(a.index);
  if (a.index == "-")
    throw Error(errc::usage,
                "--index -: the index is written to a file (it is read back to find the clusters)");
  // The report's path is checked (and its temporary file made) before the work, not after the
  // output is published; it is written whole or not at all.
  std::optional<Output> report;
  if (!a.report.empty()) {
    if (a.report == "-" && a.output == "-")
      throw Error(errc::usage, "--report - and the output both go to standard output: give one a file");
    writer::refuse_same_output(a.report, "--report", a.output, "the output");
    writer::refuse_same_output(a.report, "--report", a.index, "--index");
    if (!a.index.empty())
      writer::refuse_same_output(a.report, "--report", key_map_path(a.index), "--index's key map");
    writer::refuse_input_as_output(a.input, a.report, "--report");
    report.emplace(a.report);
  }
  Progress progress(a.progress || (!a.quiet && Progress::stderr_is_terminal()));
  DedupOptions o;
  o.documents = document_options(a.text);
  o.fingerprint = fingerprint_options(a.text);
  o.k = a.k;
  o.keep = keep_policy(a.keep);
  o.index = a.index;
  o.threads = a.threads;
  if (!a.memory.empty()) o.memory_bytes = parse_size(a.memory, "--memory");
  o.temp_dir = temp_dir_for(a.tmp_dir, a.output);  // "" for stdout: the library's system temp directory
  o.progress = [&](std::string_view stage, std::uint64_t done, std::uint64_t total) {
    progress.update(stage, done, total, stage == "reading" ? Progress::Unit::bytes : Progress::Unit::items);
  };
  // The report is written before the output is published: a report that cannot be written leaves
  // neither.
  o.before_publish = [&](const DedupResult& r) {
    if (report) write_report(*report, a.input, a.output, r);
  };
  const DedupResult r = dedup(a.input, a.output, o);
  progress.finish();
  if (!a.quiet) {
    const std::size_t clusters = r.clusters.size();
    std::cerr << fmt::format(
        "simdex: dedup: {} document{}, {} cluster{} of near-duplicates (k = {}): kept {}, removed {}{}; "
        "wrote {} in {}\n",
        r.documents, plural_s(r.documents), clusters, plural_s(clusters), r.k, r.documents - r.removed,
        r.removed,
        r.without_words.empty()
            ? std::string()
            : fmt::format(" ({} without words kept, compared with none)", r.without_words.size()),
        a.output == "-" ? std::string("standard output") : a.output, elapsed_text(start));
  }
}

}  // namespace

void add_dedup_command(CLI::App& app) {
  auto args = std::make_shared<DedupArgs>();
  auto* cmd = app.add_subcommand("dedup", "Write a dataset without its near-duplicate documents");
  cmd->add_option("input", args->input,
                  "Documents: JSON Lines or lines (plain, .gz, .zst), - for stdin, or a directory")
      ->capture_default_str();
  cmd->add_option("-o,--output", args->output,
                  "The deduplicated dataset (.gz/.zst: compressed so; - for stdout)")
      ->required();
  cmd->add_option("-k,--max-distance", args->k,
                  "Documents whose fingerprints differ in at most k bits are duplicates")
      ->capture_default_str()
      ->check(whole_number(0, 32));
  cmd->add_option("--keep", args->keep, "Which document of a cluster is kept: first, longest or shortest")
      ->check(CLI::IsMember({"first", "longest", "shortest"}))
      ->capture_default_str();
  cmd->add_option("--index", args->index,
                  "Keep the index of the documents here (its key map beside it, INDEX.keys.tsv; documents "
                  "without words are not in it); default: a temporary one, removed at the end");
  cmd->add_option(
      "--report", args->report,
      "Write the clusters (keys, distances) and counts here, as JSON (a name ending .gz or .zst is "
      "compressed so)");
  cmd->add_option("--memory", args->memory,
                  "Memory bound of the fingerprinting and the index build, e.g. 256M (default: a quarter "
                  "of physical memory); the clustering needs about 90 bytes per document beside it");
  cmd->add_option(
      "--tmp-dir", args->tmp_dir,
      "Directory of temporary files: the index, sort runs, a copy of stdin or a pipe (default: the "
      "output's directory; the system's with -o -)");
  add_threads_option(*cmd, args->threads);
  add_text_options(*cmd, args->text);
  cmd->remove_option(cmd->get_option("--key-map"));  // dedup's key map goes beside --index
  add_progress_flags(*cmd, args->quiet, args->progress, "No progress, no summary");
  cmd->footer(
      "What it does: the pipeline `fingerprint` -> `build` -> `clusters --ids` in one command. Every\n"
      "document is fingerprinted (spec/FINGERPRINT.md; the Text flags apply), the fingerprints go into\n"
      "an index, documents whose fingerprints are in one cluster (connected within k bits) are\n"
      "duplicates, and one of each cluster is kept (--keep; ties: the first). Documents with the same\n"
      "key and the same fingerprint are duplicates too. Documents without words (emoji, punctuation or\n"
      "an empty text: all have the fingerprint 0, whatever they hold) are kept and compared with none;\n"
      "the summary and the report count them.\n"
      "\n"
      "Output: JSON Lines and lines inputs give the kept lines unchanged, in input order (blank lines\n"
      "of JSON Lines are dropped); a directory gives the kept files' paths relative to it, one a line\n"
      "(escaped as spec/KEYS.md escapes keys). Written atomically (temporary file, rename).\n"
      "\n"
      "Ids: --id-field names the field with each record's id or key (spec/KEYS.md): an integer is the\n"
      "id, a string is a key (id = XXH3-64 of its bytes), no field: the 0-based line number. Two keys\n"
      "with one id stop the run with an error naming both.\n"
      "\n"
      "The report (--report FILE): {\"documents\":N,\"kept\":N,\"removed\":N,\"without_words\":N,\n"
      "\"clusters_count\":N,\"clusters\":[{\"size\":N,\"members\":[{\"document\":I,\"line\":L,\"id\":ID,\n"
      "\"key\":\"...\"|null,\"fingerprint\":\"0x...\",\"distance\":D,\"bytes\":B,\"kept\":true|false},...]},."
      "..]}:\n"
      "I the 0-based position among the documents, L the 1-based line of the input (0 for a\n"
      "directory's file; a record without an id field has the id L - 1), D the distance to the kept\n"
      "member (more than k is possible through other members).\n"
      "\n"
      "Examples:\n"
      "  simdex dedup data/corpus/docs.jsonl.gz -o deduped.jsonl.gz --report report.json\n"
      "  simdex dedup crawl.jsonl.zst --id-field url --keep longest -o clean.jsonl.zst\n"
      "  zcat dump.jsonl.gz | simdex dedup - -o - > clean.jsonl\n"
      "  simdex dedup mails/ -o kept-paths.txt\n");
  cmd->callback([args] { run_dedup(*args); });
}

}  // namespace simdex::cli
