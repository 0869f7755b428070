#include "cli/text_options.h"

#include <algorithm>
#include <filesystem>
#include <iostream>
#include <string>
#include <vector>

#include "cli/output.h"
#include "cli/whole_number.h"
#include "fingerprint/document_fingerprints.h"
#include "simdex/documents.h"
#include "simdex/error.h"
#include "writer/atomic_file.h"

namespace simdex::cli {

void add_text_options(CLI::App& cmd, TextOptions& o, bool queries) {
  const std::string g = "Text";
  if (queries) o.keys_flag = "--keys";
  cmd.add_option("--input-format", o.input_format,
                 "auto: a directory is 'dir', anything else 'jsonl'.\n"
                 "jsonl: one JSON object a line with a text field and an optional id field.\n"
                 "lines: one document a line, id = 0-based line number.\n"
                 "dir: one document a file, keyed by its path (spec/KEYS.md)")
      ->check(CLI::IsMember({"auto", "jsonl", "lines", "dir"}))
      ->capture_default_str()
      ->group(g);
  cmd.add_option("--id-field", o.id_field,
                 "JSON Lines: the field holding the id: an integer 0..2^64-1 is the id, a string is a key "
                 "(id = XXH3-64 of its bytes, kept in the key map), absent or null: the 0-based line "
                 "number (spec/KEYS.md)")
      ->capture_default_str()
      ->each([&o](const std::string&) { o.field_flag = "--id-field"; })
      ->group(g);
  cmd.add_option("--text-field", o.text_field, "JSON Lines: the field holding the text, a string")
      ->capture_default_str()
      ->each([&o](const std::string&) { o.field_flag = "--text-field"; })
      ->group(g);
  cmd.add_option("--shingle", o.shingle_size,
                 "Tokens per feature: 1 = single words, 3 = word 3-shingles (spec/FINGERPRINT.md step 5)")
      ->check(whole_number(1, FingerprintOptions::max_shingle_size))
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
  cmd.add_option(
         "--key-map,--paths", o.paths_file,
         std::string("Write the key map (ID<TAB>KEY lines, spec/KEYS.md) of string keys and paths here ") +
             (queries ? "(default: none; a directory of documents needs one, or --keys)"
                      : "(default: beside the output, OUTPUT.keys.tsv)") +
             "; an input without string keys gives a map of no entry")
      ->each([&o](const std::string&) { o.key_map_flag = true; })
      ->group(g);
}

namespace {

// A stopword that can never match is most likely a mistake ("don't" is two tokens), but not an
// error: an index records the list it was built with, and the same file must still give it.
void warn_of_unmatchable(const std::vector<std::string>& words, const std::string& file) {
  constexpr std::size_t kShown = 5;
  std::size_t unmatchable = 0;
  for (const std::string& word : words) {
    const std::string problem = stopword_problem(word);
    if (problem.empty()) continue;
    if (++unmatchable <= kShown)
      std::cerr << "simdex: warning: stopwords file '" << printable(file) << "': " << printable(problem)
                << "\n";
  }
  if (unmatchable > kShown)
    std::cerr << "simdex: warning: stopwords file '" << printable(file) << "': " << unmatchable - kShown
              << " more entries that never match\n";
}

}  // namespace

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
    if (!o.stopwords_file_words) {
      o.stopwords_file_words = read_stopwords_file(o.stopwords_file);
      warn_of_unmatchable(*o.stopwords_file_words, o.stopwords_file);
    }
    f.stopwords.insert(f.stopwords.end(), o.stopwords_file_words->begin(), o.stopwords_file_words->end());
  }
  return f;
}

FingerprintSettings text_settings(const TextOptions& o) {
  return fingerprint_settings(fingerprint_options(o));
}

void require_index_settings(const Index& index, const std::string& index_name, const TextOptions& o) {
  require_same_settings(
      index.fingerprint_settings(), text_settings(o),
      "the index " + (index_name == "-" ? std::string("on stdin") : "'" + index_name + "'"));
}

DocumentOptions document_options(const TextOptions& o) {
  DocumentOptions d;
  d.format = document_format(o.input_format);
  if (!o.field_flag.empty() && (d.format == DocumentFormat::lines || d.format == DocumentFormat::directory))
    throw Error(errc::usage, o.field_flag + " names a field of JSON Lines records; --input-format " +
                                 o.input_format + " has no fields");
  d.id_field = o.id_field;
  d.text_field = o.text_field;
  d.max_line_bytes = o.max_line_bytes;
  return d;
}

void refuse_key_map_over(const std::string& key_map, const std::string& index) {
  if (key_map.empty() || index.empty() || index == "-") return;
  writer::refuse_same_output(key_map, "--key-map", index, "the index");
  writer::refuse_same_output(key_map, "--key-map", key_map_path(index),
                             "the index's key map (read by --keys)");
}

namespace {
// The key map beside `output`, `key_map` (OUTPUT.keys.tsv), takes a longer name than the output's.
void require_room_for_key_map(const std::string& output, const std::string& key_map) {
  const std::filesystem::path path(key_map);
  const std::size_t length = path.filename().string().size();
  const std::size_t most = writer::max_output_name_bytes(path.parent_path().string());
  if (length <= most) return;
  const std::size_t suffix = key_map.size() - output.size();
  throw Error(
      errc::usage,
      "the documents have keys, and the key map beside the output, '" + path.filename().string() +
          "', would be " + std::to_string(length) + " bytes, past the " + std::to_string(most) +
          " a name may take here (with room for its temporary file): give an output name of at most " +
          std::to_string(most > suffix ? most - suffix : 0) + " bytes, or the map a name of its own " +
          "(--key-map FILE)",
      ENAMETOOLONG);
}
}  // namespace

PendingKeyMap for_each_text_fingerprint(const std::string& input, const TextOptions& o,
                                        const std::string& listing_beside, const TextFingerprintFn& fn,
                                        Progress* progress, std::string_view stage) {
  // A command's memory bound caps the longest line at a quarter of it (for_each_input_pair); a
  // block of lines (two are held) takes a sixteenth, or the one line longer than that.
  const std::size_t block_bytes =
      std::min(DocumentFingerprints::default_block_bytes(o.threads),
               std::max<std::size_t>(o.max_line_bytes / 4, std::size_t{64} << 10));
  DocumentFingerprints documents(input, document_options(o), fingerprint_options(o), o.threads, block_bytes);
  std::string key_map = o.paths_file;
  if (key_map.empty() && !listing_beside.empty()) key_map = key_map_path(listing_beside);
  // Written at the end: it must not replace the documents being read, nor the output.
  writer::refuse_input_as_output(input, key_map, "the key map");
  if (!o.paths_file.empty()) {
    // (no listing: the results go to standard output)
    writer::refuse_same_output(key_map, "the key map", listing_beside.empty() ? "-" : listing_beside,
                               "the output");
    writer::require_target_directory(o.paths_file);  // before the work, as the output's
    writer::checked_target(o.paths_file);            // (a device, a FIFO: a map is a file to map)
  }
  // Its ids are hashes of its paths: useless unless the paths are printed or kept in a map.
  if (key_map.empty() && documents.format() == DocumentFormat::directory && !o.keys_printed)
    throw Error(
        errc::usage,
        std::string("a directory input needs --key-map FILE") +
            (o.keys_flag.empty() ? "" : " or " + o.keys_flag + " (which prints each document's path)") +
            ": its documents' keys are their paths, kept in that key map (there is no "
            "output file to put it beside)");
  KeyMapBuilder keys;
  // The map beside the output is written only if a document has a key: its name (longer than the
  // output's) is checked at the first one, not when the work is done.
  bool key_map_checked = !o.paths_file.empty() || key_map.empty();
  auto show = [&](const DocumentSource::Position& at) {
    progress->update(stage, at.done, at.total, at.in_bytes ? Progress::Unit::bytes : Progress::Unit::items);
  };
  documents.run(
      [&](const FingerprintedDocument& doc) {
        if (!key_map_checked && doc.id_kind == IdKind::key) {
          require_room_for_key_map(listing_beside, key_map);
          key_map_checked = true;
        }
        keys.add(doc.id, doc.id_kind, doc.key, doc.line);
        fn(doc.id, doc.fingerprint,
           doc.id_kind == IdKind::key ? std::optional<std::string_view>(doc.key) : std::nullopt);
      },
      progress ? DocumentFingerprints::Progress(show) : DocumentFingerprints::Progress());
  keys.check();  // a collision is an error even when no map is written
  // A map beside the output from an earlier run is stale once this one's goes to --key-map FILE.
  const std::string beside = listing_beside.empty() ? "" : key_map_path(listing_beside);
  const std::string stale = !o.paths_file.empty() && beside != key_map ? beside : "";
  // A file named by --key-map holds this input's keys, none included: never an earlier run's.
  if ((keys.key_count() > 0 || o.key_map_flag) && !key_map.empty())
    return std::move(PendingKeyMap::of(keys, key_map).also_remove(stale));
  if (keys.key_count() > 0 && o.note_unmapped_keys)
    std::cerr
        << "simdex: note: the input's keys are in no key map (the output is stdout): use --key-map FILE\n";
  else if (o.paths_file.empty() && !key_map.empty())
    return PendingKeyMap::removal(key_map);  // no keys: a map left beside the output by an earlier run
  return stale.empty() ? PendingKeyMap() : PendingKeyMap::removal(stale);
}

}  // namespace simdex::cli
