// The text flags shared by `simdex fingerprint`, `simdex build --text` and `simdex query --text`,
// and the loop that turns an input of documents into (id, fingerprint) pairs.
#pragma once

#include <CLI/CLI.hpp>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "cli/progress.h"
#include "fingerprint/pending_key_map.h"
#include "simdex/documents.h"
#include "simdex/fingerprint.h"
#include "simdex/index.h"

namespace simdex::cli {

struct TextOptions {
  std::string input_format = "auto";  // auto | jsonl | lines | dir
  std::string id_field = "id";
  std::string text_field = "text";
  std::string field_flag;  // "--id-field" or "--text-field" when given: JSON Lines only
  unsigned shingle_size = 3;
  std::string weighting = "frequency";  // frequency | binary
  std::string stopwords = "none";       // none | english
  std::string stopwords_file;           // more stopwords, one a line
  std::string paths_file;               // --key-map (alias --paths): where the key map goes
  bool key_map_flag = false;            // --key-map was given: a map is written there even without keys
  std::size_t max_line_bytes = std::size_t{64} << 20;  // longest JSONL or lines document (not a flag)
  bool note_unmapped_keys = false;  // say on stderr when keys were read but no key map is written
  bool keys_printed = false;        // the command prints each document's key (as keys_flag asks)
  std::string keys_flag;            // the command's flag that prints the keys (--keys, --json), if any
  unsigned threads = 0;             // fingerprinting threads (0: all cores); the command's --threads
  // The file's entries, read (and its entries that can never match warned of) at the first use.
  mutable std::optional<std::vector<std::string>> stopwords_file_words;
};

// Adds --input-format, --id-field, --text-field, --shingle, --weighting, --stopwords,
// --stopwords-file and --key-map (alias --paths) to `cmd`, in an option group "Text", storing into
// `options`.
// `queries`: the documents are a command's queries (query, join), whose key map goes nowhere unless
// --key-map names a file.
void add_text_options(CLI::App& cmd, TextOptions& options, bool queries = false);

// What an index built with these flags records of them (spec/FORMAT.md §5.2). Throws as
// fingerprint_options does.
FingerprintSettings text_settings(const TextOptions& options);

// Error(settings_mismatch) naming both settings when `index` records fingerprint settings other than
// those of these flags (an index recording none is accepted); `index_name` is how the user named it.
void require_index_settings(const Index& index, const std::string& index_name, const TextOptions& options);

// The library options --input-format, --id-field, --text-field stand for.
DocumentOptions document_options(const TextOptions& options);

// The library options the flags stand for. Throws simdex::Error (errc::usage, or errc::io when the
// stopwords file cannot be read). The first call reads the stopwords file and warns on stderr of each
// entry that can never match (simdex::stopword_problem).
FingerprintOptions fingerprint_options(const TextOptions& options);

using TextFingerprintFn =
    std::function<void(std::uint64_t id, std::uint64_t fingerprint, std::optional<std::string_view> key)>;

// Fingerprints every document of `input` (a file, "-" for stdin, or a directory), read by
// simdex::DocumentSource (its ids), and calls fn(id, fingerprint, key) for each, in input order (from
// the calling thread; the fingerprints are computed on options.threads threads meanwhile); `key` is
// the document's key (spec/KEYS.md), nothing for an integer id or a line number. The key
// map of the documents' keys (spec/KEYS.md) is for options.paths_file, or when that is empty for
// key_map_path(listing_beside) (a stale one there is removed when the input has no keys), and is
// returned to be committed after the output is published; with neither, a directory input is a
// usage error, and a map path that is the input or the output is refused. Throws simdex::Error: errc::input
// naming the file and line of a malformed document or a collision of ids, errc::io, errc::usage. With
// `progress`, shows how much of the input was read under the stage name `stage`.
// --key-map FILE writes a key map: Error(usage) when FILE is `index` (an index or set the command
// reads or writes) or the key map beside it, which --keys reads.
void refuse_key_map_over(const std::string& key_map, const std::string& index);

[[nodiscard]] PendingKeyMap for_each_text_fingerprint(const std::string& input, const TextOptions& options,
                                                      const std::string& listing_beside,
                                                      const TextFingerprintFn& fn,
                                                      Progress* progress = nullptr,
                                                      std::string_view stage = "fingerprint");

}  // namespace simdex::cli
