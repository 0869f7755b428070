#include "cli/text_options.h"

#include <string>
#include <vector>

#include "simdex/documents.h"
#include "simdex/error.h"

namespace simdex::cli {

void add_text_options(CLI::App& cmd, TextOptions& o) {
  const std::string g = "Text";
  cmd.add_option("--input-format", o.input_format,
                 "auto: a directory is 'dir', anything else 'jsonl'.\n"
                 "jsonl: one JSON object a line with an id and a text field.\n"
                 "lines: one document a line, id = 0-based line number.\n"
                 "dir: one document a file; see --paths")
      ->check(CLI::IsMember({"auto", "jsonl", "lines", "dir"}))
      ->capture_default_str()
      ->group(g);
  cmd.add_option("--id-field", o.id_field, "JSON Lines: the field holding the id, an integer 0..2^64-1")
      ->capture_default_str()
      ->group(g);
  cmd.add_option("--text-field", o.text_field, "JSON Lines: the field holding the text, a string")
      ->capture_default_str()
      ->group(g);
  cmd.add_option("--shingle", o.shingle_size,
                 "Tokens per feature: 1 = single words, 3 = word 3-shingles (spec/FINGERPRINT.md step 5)")
      ->check(CLI::Range(1u, FingerprintOptions::max_shingle_size))
      ->capture_default_str()
      ->group(g);
  cmd.add_option("--weighting", o.weighting,
                 "frequency: a feature counts as often as it occurs; binary: once")
      ->check(CLI::IsMember({"frequency", "binary"}))
      ->capture_default_str()
      ->group(g);
  cmd.add_option("--stopwords", o.stopwords, "Words dropped before shingling: none, or english (33 words)")
      ->check(CLI::IsMember({"none", "english"}))
      ->capture_default_str()
      ->group(g);
  cmd.add_option("--stopwords-file", o.stopwords_file,
                 "More stopwords, one a line (UTF-8; case and width do not matter)")
      ->group(g);
  cmd.add_option("--paths", o.paths_file,
                 "Directory input: write the ID<TAB>PATH listing here (default: beside the output, "
                 "OUTPUT.paths.tsv)")
      ->group(g);
}

FingerprintOptions fingerprint_options(const TextOptions& o) {
  FingerprintOptions f;
  if (o.shingle_size < 1 || o.shingle_size > FingerprintOptions::max_shingle_size)
    throw Error(errc::usage, "--shingle must be 1.." + std::to_string(FingerprintOptions::max_shingle_size));
  f.shingle_size = o.shingle_size;
  if (o.weighting == "binary")
    f.weighting = Weighting::binary;
  else if (o.weighting != "frequency")
    throw Error(errc::usage, "--weighting must be frequency or binary");
  if (o.stopwords == "english")
    f.stopwords = english_stopwords();
  else if (o.stopwords != "none")
    throw Error(errc::usage, "--stopwords must be none or english");
  if (!o.stopwords_file.empty()) {
    const std::vector<std::string> more = read_stopwords_file(o.stopwords_file);
    f.stopwords.insert(f.stopwords.end(), more.begin(), more.end());
  }
  return f;
}

namespace {

DocumentOptions document_options(const TextOptions& o) {
  DocumentOptions d;
  if (o.input_format == "auto")
    d.format = DocumentFormat::automatic;
  else if (o.input_format == "jsonl")
    d.format = DocumentFormat::jsonl;
  else if (o.input_format == "lines")
    d.format = DocumentFormat::lines;
  else if (o.input_format == "dir")
    d.format = DocumentFormat::directory;
  else
    throw Error(errc::usage, "unknown --input-format '" + o.input_format + "'");
  d.id_field = o.id_field;
  d.text_field = o.text_field;
  d.max_line_bytes = o.max_line_bytes;
  return d;
}

}  // namespace

void for_each_text_fingerprint(const std::string& input, const TextOptions& o,
                               const std::string& listing_beside,
                               const std::function<void(std::uint64_t, std::uint64_t)>& fn,
                               Progress* progress, std::string_view stage) {
  Fingerprinter fingerprinter(fingerprint_options(o));
  DocumentSource documents(input, document_options(o));
  if (documents.format() == DocumentFormat::directory) {
    std::string listing = o.paths_file;
    if (listing.empty() && !listing_beside.empty()) listing = listing_beside + ".paths.tsv";
    if (listing.empty())
      throw Error(errc::usage,
                  "a directory input needs --paths FILE for its ID<TAB>PATH listing when the "
                  "output goes to stdout");
    documents.write_paths(listing);
  }
  auto show = [&] {
    const DocumentSource::Position at = documents.position();
    progress->update(stage, at.done, at.total, at.in_bytes ? Progress::Unit::bytes : Progress::Unit::items);
  };
  Document doc;
  while (documents.next(doc)) {
    fn(doc.id, fingerprinter.fingerprint(doc.text));
    if (progress) show();
  }
  if (progress) show();
}

}  // namespace simdex::cli
