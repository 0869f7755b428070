// simdex fingerprint: documents in, `FINGERPRINT<TAB>ID` lines out (what `simdex build` reads).
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>
#include <utility>

#include "cli/commands.h"
#include "cli/text_options.h"
#include "simdex/error.h"

namespace simdex::cli {

namespace {

struct FingerprintArgs {
  std::string input = "-";
  std::string output;  // empty = stdout
  TextOptions text;
};

// Buffered lines to a file or stdout; write errors (a full disk, a closed pipe) become errc::io.
class LineWriter {
 public:
  explicit LineWriter(const std::string& path) : name_(path.empty() ? "<stdout>" : path) {
    file_ = path.empty() ? stdout : std::fopen(path.c_str(), "wb");
    if (file_ == nullptr) throw Error(errc::io, "cannot write '" + path + "': " + std::strerror(errno));
    buffer_.reserve(1 << 16);
  }
  ~LineWriter() {
    if (file_ != nullptr && file_ != stdout) std::fclose(file_);
  }
  void write(std::uint64_t fingerprint, std::uint64_t id) {
    char line[48];
    const int n = std::snprintf(line, sizeof line, "0x%016llx\t%llu\n", static_cast<unsigned long long>(fingerprint),
                                static_cast<unsigned long long>(id));
    buffer_.append(line, static_cast<std::size_t>(n));
    if (buffer_.size() >= (1 << 16)) flush();
  }
  void close() {
    flush();
    if (std::fflush(file_) != 0) fail();
    if (file_ != stdout) {
      FILE* f = std::exchange(file_, nullptr);
      if (std::fclose(f) != 0) fail();
    }
  }

 private:
  void flush() {
    if (!buffer_.empty() && std::fwrite(buffer_.data(), 1, buffer_.size(), file_) != buffer_.size()) fail();
    buffer_.clear();
  }
  [[noreturn]] void fail() { throw Error(errc::io, "write error on " + name_ + ": " + std::strerror(errno)); }

  std::string name_;
  std::FILE* file_;
  std::string buffer_;
};

void run_fingerprint(const FingerprintArgs& a) {
  LineWriter out(a.output);
  for_each_text_fingerprint(a.input, a.text, a.output,
                            [&out](std::uint64_t id, std::uint64_t fp) { out.write(fp, id); });
  out.close();
}

}  // namespace

void add_fingerprint_command(CLI::App& app) {
  auto args = std::make_shared<FingerprintArgs>();
  auto* cmd = app.add_subcommand("fingerprint", "Compute the 64-bit simhash of text documents");
  cmd->add_option("input", args->input,
                  "Documents: a file (gzip/zstd compressed or plain), - for stdin, or a directory")
      ->capture_default_str();
  cmd->add_option("-o,--output", args->output, "Write here instead of stdout");
  add_text_options(*cmd, args->text);
  cmd->footer(
      "Output: one line a document, `FINGERPRINT<TAB>ID`, FINGERPRINT as 0x and 16 hex digits, in input\n"
      "order; `simdex build` reads it as it is.\n"
      "\n"
      "Inputs:\n"
      "  jsonl  {\"id\": 17, \"text\": \"...\"} one object a line (other fields are ignored; rename the two\n"
      "         with --id-field/--text-field). Blank lines are skipped. A malformed line stops the run\n"
      "         with its line number.\n"
      "  lines  every line is a document, empty lines too; id = 0-based line number.\n"
      "  dir    every regular file below the directory is a document (compressed files are unpacked);\n"
      "         id = position in the byte order of the '/'-separated relative paths. The ID<TAB>PATH\n"
      "         listing goes to --paths, or beside the output as OUTPUT.paths.tsv.\n"
      "\n"
      "The fingerprint (spec/FINGERPRINT.md): invalid UTF-8 is replaced, never rejected; text is\n"
      "normalized (NFKC, case folded), cut into words (Chinese, Japanese, Thai: pairs of characters),\n"
      "shingled by --shingle words, each shingle hashed with XXH3-64, and the hashes tallied per bit.\n"
      "Texts that differ by a few words get fingerprints a few bits apart. The same text and flags give\n"
      "the same fingerprint on every machine: use the same flags for build and query.\n"
      "\n"
      "Examples:\n"
      "  simdex fingerprint data/corpus/docs.jsonl.gz -o corpus.fp\n"
      "  simdex fingerprint --input-format lines --shingle 2 titles.txt\n"
      "  simdex fingerprint mails/ -o mails.fp          # also writes mails.fp.paths.tsv\n"
      "  echo '{\"id\": 1, \"text\": \"Hello, world\"}' | simdex fingerprint -\n");
  cmd->callback([args] { run_fingerprint(*args); });
}

}  // namespace simdex::cli
