#include "cli/text_options.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <stdexcept>
#include <vector>

#include "fingerprint/documents.h"
#include "io/input_stream.h"
#include "simdex/error.h"

namespace simdex::cli {

namespace fs = std::filesystem;

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
  if (o.weighting == "binary") f.weighting = Weighting::binary;
  else if (o.weighting != "frequency") throw Error(errc::usage, "--weighting must be frequency or binary");
  if (o.stopwords == "english") f.stopwords = english_stopwords();
  else if (o.stopwords != "none") throw Error(errc::usage, "--stopwords must be none or english");
  if (!o.stopwords_file.empty()) {
    std::ifstream in(o.stopwords_file);
    if (!in) throw Error(errc::io, "cannot open stopwords file '" + o.stopwords_file + "': " + std::strerror(errno));
    std::string word;
    while (std::getline(in, word)) {
      if (!word.empty() && word.back() == '\r') word.pop_back();
      if (!word.empty()) f.stopwords.push_back(word);
    }
    if (in.bad()) throw Error(errc::io, "read error on stopwords file '" + o.stopwords_file + "'");
  }
  return f;
}

namespace {

Fingerprinter make_fingerprinter(const TextOptions& o) {
  try {
    return Fingerprinter(fingerprint_options(o));
  } catch (const std::invalid_argument& e) {
    throw Error(errc::usage, e.what());
  }
}

// The regular files under `dir`, as '/'-separated relative paths in byte order: stable across
// platforms and locales, unlike the directory iteration order.
std::vector<std::string> list_files(const fs::path& dir) {
  std::vector<std::string> files;
  std::error_code ec;
  fs::recursive_directory_iterator it(dir, fs::directory_options::none, ec), end;
  for (; !ec && it != end; it.increment(ec))
    if (it->is_regular_file(ec) && !ec) files.push_back(it->path().lexically_relative(dir).generic_string());
  if (ec) throw Error(errc::io, "cannot list directory '" + dir.string() + "': " + ec.message());
  std::sort(files.begin(), files.end());
  return files;
}

void fingerprint_directory(const fs::path& dir, const TextOptions& o, const std::string& listing_beside,
                           Fingerprinter& fp, const std::function<void(std::uint64_t, std::uint64_t)>& fn) {
  std::string listing = o.paths_file;
  if (listing.empty() && !listing_beside.empty()) listing = listing_beside + ".paths.tsv";
  if (listing.empty())
    throw Error(errc::usage, "a directory input needs --paths FILE for its ID<TAB>PATH listing when the "
                             "output goes to stdout");
  const std::vector<std::string> files = list_files(dir);
  std::ofstream paths(listing, std::ios::binary | std::ios::trunc);
  if (!paths) throw Error(errc::io, "cannot write '" + listing + "': " + std::strerror(errno));
  std::string text;
  for (std::uint64_t id = 0; id < files.size(); ++id) {
    paths << id << '\t' << files[id] << '\n';
    io::InputStream in((dir / files[id]).string());
    text.assign(std::istreambuf_iterator<char>(in.stream()), std::istreambuf_iterator<char>());
    fn(id, fp.fingerprint(text));
  }
  paths.flush();
  if (!paths) throw Error(errc::io, "write error on '" + listing + "'");
}

}  // namespace

void for_each_text_fingerprint(const std::string& input, const TextOptions& o, const std::string& listing_beside,
                               const std::function<void(std::uint64_t, std::uint64_t)>& fn) {
  Fingerprinter fingerprinter = make_fingerprinter(o);
  std::error_code ec;
  const bool is_dir = input != "-" && fs::is_directory(input, ec);
  std::string format = o.input_format;
  if (format == "auto") format = is_dir ? "dir" : "jsonl";
  if (format == "dir") {
    if (!is_dir) throw Error(errc::usage, "--input-format dir needs a directory, not '" + input + "'");
    fingerprint_directory(input, o, listing_beside, fingerprinter, fn);
    return;
  }
  if (is_dir) throw Error(errc::usage, "'" + input + "' is a directory: use --input-format dir (or auto)");
  if (format != "jsonl" && format != "lines") throw Error(errc::usage, "unknown --input-format '" + format + "'");
  io::InputStream in(input);
  fp::DocumentReader reader(in.stream(), in.name(),
                            format == "jsonl" ? fp::DocumentFormat::jsonl : fp::DocumentFormat::lines,
                            o.id_field, o.text_field, o.max_line_bytes);
  fp::Document doc;
  while (reader.next(doc)) fn(doc.id, fingerprinter.fingerprint(doc.text));
}

}  // namespace simdex::cli
