// simdex fingerprint: documents in, `FINGERPRINT<TAB>ID` lines out (what `simdex build` reads).
#include <memory>
#include <string>

#include "cli/commands.h"
#include "cli/output.h"
#include "cli/output_style.h"
#include "cli/text_options.h"
#include "cli/threads_option.h"
#include "simdex/error.h"

namespace simdex::cli {

namespace {

struct FingerprintArgs {
  std::string input = "-";
  std::string output;  // empty or "-": stdout
  OutputStyle style;
  bool quiet = false, progress = false;
  TextOptions text;
};

void run_fingerprint(const FingerprintArgs& a) {
  writer::refuse_input_as_output(a.input, a.output);
  Output out(a.output);
  TextOptions text = a.text;
  text.keys_printed = a.style.json;  // JSON Lines carry each document's key
  text.keys_flag = "--json";
  text.note_unmapped_keys = !text.keys_printed;  // to stdout: the keys' map needs --key-map
  const std::string listing_beside = a.output == "-" ? "" : a.output;
  Progress progress(Progress::wanted(a.quiet, a.progress));
  auto& b = out.buffer();
  PendingKeyMap keys = for_each_text_fingerprint(
      a.input, text, listing_beside,
      [&](std::uint64_t id, std::uint64_t fp, std::optional<std::string_view> key) {
        if (a.style.json) {
          fmt::format_to(fmt::appender(b), R"({{"id":{},)", id);
          if (key) {
            b.append(std::string_view(R"("key":)"));
            append_json_string(b, *key);
            b.push_back(',');
          }
          b.append(std::string_view(R"("fingerprint":)"));
          append_fingerprint(b, fp, a.style);
          out.print("}}\n");
        } else {
          append_fingerprint(b, fp, a.style);
          out.print("\t{}\n", id);
        }
      },
      &progress);
  progress.finish();
  out.close();
  keys.commit();  // after the output it belongs to
}

}  // namespace

void add_fingerprint_command(CLI::App& app) {
  auto args = std::make_shared<FingerprintArgs>();
  auto* cmd = app.add_subcommand("fingerprint", "Compute the 64-bit simhash of text documents");
  cmd->add_option("input", args->input,
                  "Documents: a file (gzip/zstd compressed or plain), - for stdin, or a directory")
      ->capture_default_str();
  cmd->add_option("-o,--output", args->output,
                  "Write here instead of stdout (- is stdout); a name ending .gz or .zst is compressed so");
  add_json_flag(
      *cmd, args->style,
      "JSON Lines: {\"id\":I,\"fingerprint\":F}, with \"key\":K after the id of a document keyed by a "
      "string (or a directory's path)");
  add_base_flags(*cmd, args->style, true);
  add_progress_flags(*cmd, args->quiet, args->progress);
  add_threads_option(*cmd, args->text.threads, "Worker threads (0: all cores); the output is the same");
  add_text_options(*cmd, args->text);
  cmd->footer(
      "Output: one line a document, `FINGERPRINT<TAB>ID`, FINGERPRINT as 0x and 16 hex digits (--dec:\n"
      "decimal), in input order at any --threads; `simdex build` reads it as it is. With --json: "
      "{\"id\":I,\"fingerprint\":F}\n"
      "(F a string \"0x...\", or with --dec a number).\n"
      "\n"
      "Inputs:\n"
      "  jsonl  {\"id\": 17, \"text\": \"...\"} one object a line (other fields are ignored; rename the two\n"
      "         with --id-field/--text-field). The id field may hold an integer (the id), a string (a\n"
      "         key: id = XXH3-64 of its bytes) or be absent (id = the 0-based line number);\n"
      "         spec/KEYS.md. Blank lines are skipped. A malformed line stops the run with its number.\n"
      "  lines  every line is a document, empty lines too; id = 0-based line number.\n"
      "  dir    every regular file below the directory is a document (compressed files are unpacked),\n"
      "         keyed by its '/'-separated relative path.\n"
      "Keys (strings, paths) go to the key map, ID<TAB>KEY lines sorted by id (spec/KEYS.md): to\n"
      "--key-map FILE, or beside the output as OUTPUT.keys.tsv (`simdex build` carries it beside the\n"
      "index, where `--keys` finds it). Two keys with one id stop the run, naming both.\n"
      "\n"
      "The fingerprint (spec/FINGERPRINT.md): invalid UTF-8 is replaced, never rejected; text is\n"
      "normalized (NFKC, case folded), cut into words (Chinese, Japanese, Thai: pairs of characters),\n"
      "shingled by --shingle words, each shingle hashed with XXH3-64, and the hashes tallied per bit.\n"
      "Texts that differ by a few words get fingerprints a few bits apart. The same text and flags give\n"
      "the same fingerprint on every machine: use the same flags for build and query.\n"
      "\n"
      "Examples:\n"
      "  simdex fingerprint data/corpus/docs.jsonl.gz -o corpus.fp\n"
      "  simdex fingerprint docs.jsonl -o - | simdex build -o - - | simdex info -\n"
      "  simdex fingerprint --input-format lines --shingle 2 titles.txt\n"
      "  simdex fingerprint mails/ -o mails.fp          # also writes mails.fp.keys.tsv\n"
      "  simdex fingerprint crawl.jsonl.zst --id-field url -o crawl.fp\n"
      "  echo '{\"id\": 1, \"text\": \"Hello, world\"}' | simdex fingerprint -\n");
  cmd->callback([args] { run_fingerprint(*args); });
}

}  // namespace simdex::cli
