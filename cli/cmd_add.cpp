// simdex add: (fingerprint, id) lines in, a new member of an index set out.
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <iostream>

#include "cli/commands.h"
#include "cli/keys_option.h"
#include "cli/output.h"
#include "cli/pair_input.h"
#include "cli/set_output.h"
#include "cli/table_options.h"
#include "cli/text_options.h"
#include "set/set_files.h"
#include "simdex/builder.h"
#include "simdex/index.h"
#include "simdex/keys.h"
#include "simdex/set.h"
#include "writer/atomic_file.h"

namespace simdex::cli {

namespace {
struct AddArgs : SetWriteArgs {
  std::string input = "-";
  TableArgs tables;
  bool no_merge = false;
  bool text = false;
  TextOptions text_options;
};

// The key map of the documents an add brings: --key-map FILE, else the map written for it and read
// from its temporary file, never published (removed when the add ends, or by the signal cleanup of
// temporary files); for fingerprint lines, the map beside them.
class AddedKeys {
 public:
  explicit AddedKeys(AddArgs& a) : input_(a.input == "-" ? "<stdin>" : a.input) {
    std::error_code ec;
    if (!a.text) {
      if (a.input != "-") path_ = key_map_path(a.input);
      // Fingerprint lines tell a key's id from an integer id only through the map beside them.
      kinds_known_ = !path_.empty() && std::filesystem::exists(path_, ec);
      return;
    }
    kinds_known_ = true;  // documents: every key is in the map written of them
    refuse_key_map_over(a.text_options.paths_file, a.set);
    if (a.text_options.paths_file.empty()) {
      a.text_options.paths_file =
          set::pending_entry_path(a.set, std::filesystem::path(a.set).filename().string() + "-keys.tsv");
      temporary_ = true;
    }
    path_ = a.text_options.paths_file;
  }
  // Called for each pair added. An id that the set's map holds as a key's must be a key here too:
  // the ids are kept, to be checked against the set's map in extend(), which reads it in order (the
  // map itself is never held: a set's map of a billion keys is tens of gigabytes).
  void note(uint64_t id) {
    if (kinds_known_ && check_ids_) added_ids_.push_back(id);
  }
  // Whether the set has a key map (what note() checks the ids of an existing set against, and what
  // extend() adds to).
  void find_set_map(const std::string& set, bool set_exists) {
    std::error_code ec;
    set_map_ = std::filesystem::exists(key_map_path(set), ec);
    check_ids_ = set_exists && set_map_;
  }
  // The map of the documents read: published at --key-map FILE, or kept unpublished and read there.
  void take(PendingKeyMap keys) {
    if (!temporary_) return keys.commit();
    path_ = keys.unpublished_path();  // empty: the documents had no keys
    unpublished_ = std::move(keys);
  }
  AddedKeys(const AddedKeys&) = delete;
  AddedKeys& operator=(const AddedKeys&) = delete;

  // Into the set's key map (SET.keys.tsv), when the documents had keys: the two maps merged as they
  // are read. Error(input) when an added id that the set holds as a key's is not that key here too
  // (an integer id or a line number: two documents with one id, spec/KEYS.md §1.1); the set and its
  // map are then unchanged.
  void extend(const std::string& set) {
    std::error_code ec;
    const bool added = !path_.empty() && std::filesystem::exists(path_, ec);
    std::sort(added_ids_.begin(), added_ids_.end());
    added_ids_.erase(std::unique(added_ids_.begin(), added_ids_.end()), added_ids_.end());
    if (!added && added_ids_.empty()) return;
    const std::string set_map = key_map_path(set);
    std::vector<NamedKeyMap> maps;
    if (set_map_) maps.push_back({set_map, set_map});
    if (added) maps.push_back({path_, temporary_ ? input_ : path_});
    // The set's map is maps[0] where it has one; an id there alone is not a key of the added map.
    const KeyMapHolders check = [&](uint64_t id, std::string_view key, std::span<const std::size_t> in) {
      if (set_map_ && in.size() == 1 && in[0] == 0 &&
          std::binary_search(added_ids_.begin(), added_ids_.end(), id))
        throw Error(errc::input, "id " + std::to_string(id) + " is the key '" + escape_key(key) + "' in " +
                                     set_map + ", and an integer id (or line number) in " + input_ +
                                     ": two documents with one id (spec/KEYS.md 1.1); the set is unchanged");
    };
    if (!added)  // nothing to add to the map: its ids checked alone
      return unite_key_maps(
          maps, [](std::string_view) {}, "the set is unchanged", check);
    writer::AtomicFile out(set_map);
    unite_key_maps(
        maps, [&](std::string_view bytes) { out.write(bytes.data(), bytes.size()); }, "the set is unchanged",
        check);
    keep_map_before(set);
    try {
      out.publish();
    } catch (...) {
      if (!before_.empty()) ::unlink(before_.c_str());
      throw;
    }
    extended_ = true;
  }

  // After the add: the map before extend() dropped when the member was published, put back when
  // not (a failed add leaves the set's map as it found it; `remove --key` of a key never added is
  // then refused). A writer killed in between leaves the extended map, which holds every key of the
  // set and more (a key without a live pair is never printed), and the kept one for the set's next
  // writer to remove.
  // Never throws: it runs on the way out of a failed add too, whose error is the one to report.
  void finish(const std::string& set, bool published) noexcept {
    if (!extended_) return;
    extended_ = false;
    const std::string set_map = key_map_path(set);
    if (published) {
      if (!before_.empty()) ::unlink(before_.c_str());  // a second name: nothing to make durable
      return;
    }
    if (before_.empty() ? ::unlink(set_map.c_str()) != 0 : ::rename(before_.c_str(), set_map.c_str()) != 0) {
      std::cerr << "simdex: warning: could not put back the key map " << printable(set_map) << " ("
                << std::strerror(errno) << "): it holds the keys of documents not added too\n";
      return;
    }
    try {
      writer::fsync_directory(set::set_directory(set));
    } catch (const Error&) {  // put back all the same; only its durability is in doubt
    }
  }

 private:
  // A second name for the set's map (no copy), where the set's next writer cleans up what one
  // killed left.
  void keep_map_before(const std::string& set) {
    if (!set_map_) return;
    before_ =
        set::pending_entry_path(set, std::filesystem::path(set).filename().string() + "-keys-before.tsv");
    ::unlink(before_.c_str());
    if (::link(key_map_path(set).c_str(), before_.c_str()) != 0)
      throw Error(errc::io,
                  "cannot link '" + before_ + "' to the set's key map (kept until the add is published): " +
                      std::strerror(errno) + "; the set is unchanged",
                  errno);
  }

  std::string input_;
  std::string path_;
  bool temporary_ = false;
  PendingKeyMap unpublished_;  // temporary_: holds path_ until the add ends
  bool kinds_known_ = false;   // whether an id missing from the added map is an integer id
  bool set_map_ = false;       // the set has a key map
  bool check_ids_ = false;     // the set exists and has a map: the ids added are checked against it
  std::vector<uint64_t> added_ids_;
  bool extended_ = false;  // extend() published a new map; finish() keeps or undoes it
  std::string before_;     // the map before extend(), under a second name (none: the set had none)
};

void run_add(AddArgs& a) {
  const auto start = std::chrono::steady_clock::now();
  Progress progress(Progress::wanted(a.quiet, a.progress));
  SetWriterOptions options = set_writer_options(a, progress);
  options.merge_after_add = !a.no_merge;
  SetWriter set(a.set, options);
  BuildOptions build = options.build;
  // An existing set's k and block size are the defaults; given otherwise, the writer refuses them.
  TableArgs tables = a.tables;
  if (set.exists() && !*tables.k_option) tables.k = set.max_distance();
  if (set.exists() && !*tables.block_bytes_option) tables.block_bytes = set.block_bytes();
  apply_table_options(tables, build);
  if (a.text) {  // the new member records how its texts were fingerprinted, as the set's others do
    build.fingerprint_settings = text_settings(a.text_options);
    if (set.exists()) require_index_settings(Index::open(a.set), a.set, a.text_options);
  }
  build.temp_dir = temp_dir_for(build.temp_dir, a.set);
  IndexBuilder builder(build);
  AddedKeys added_keys(a);
  added_keys.find_set_map(a.set, set.exists());
  added_keys.take(for_each_input_pair(a.input, a.text, a.text_options,
                                      build.memory_bytes ? build.memory_bytes : default_memory_bytes(), "",
                                      progress, [&](uint64_t fp, uint64_t id) {
                                        builder.add(fp, id);
                                        added_keys.note(id);
                                      }));  // read by extend() below
  progress.finish();
  if (builder.pairs_added() == 0 && set.exists()) {
    report_set_unchanged(a, {a.input}, "pairs");
    return;
  }
  // Before the manifest that names the new member: a key without a live pair is never printed.
  added_keys.extend(a.set);
  const uint64_t generation = set.generation();
  SetChange change;
  try {
    change = set.add(builder);
  } catch (...) {
    // Something was published (the member, and then the merge after it threw what is no Error, or
    // only a full set merged first): the map stays extended, as ids it names may be live.
    added_keys.finish(a.set, set.generation() != generation);
    throw;
  }
  added_keys.finish(a.set, true);
  progress.finish();
  report_set_change(a, "added", change, start);
  // Exit status 0 all the same: the pairs are in, and a retry would add them twice.
  if (!change.merge_failure.empty())
    std::cerr << "simdex: warning: " << printable(change.merge_failure)
              << "\nsimdex: the set answers as it should; the next add merges, or run: simdex merge "
              << printable(a.set) << "\n";
}
}  // namespace

void add_add_command(CLI::App& app) {
  auto args = std::make_shared<AddArgs>();
  auto* cmd = app.add_subcommand("add", "Add (fingerprint, id) pairs to an index set as a new member");
  cmd->footer(
      "An index set (spec/SET.md) is a small manifest SET naming member index files (SET-G.sdx) and\n"
      "removed ids (SET-G.sdt) beside it. `query`, `join`, `pairs`, `clusters`, `info` and `verify`\n"
      "take a set wherever they take an index, and answer as the one index of its live pairs would.\n"
      "The first add creates the set (k and block size are then fixed for it).\n\n"
      "INPUT has the lines of `simdex build` (FINGERPRINT[<TAB>ID], .gz/.zst, or documents with --text).\n"
      "The new member is published with a new manifest atomically (temp file, fsync, rename): readers keep\n"
      "the snapshot they opened. Then members of similar size are merged (size-tiered, 4 to a tier), so\n"
      "the member count stays logarithmic and a small add never rewrites a large member; --no-merge skips\n"
      "that; a merge that fails (a full disk) is a warning, exit status 0, as the pairs are in (a retry\n"
      "would add them twice): the next add merges, or simdex merge. One writer at a time: a second waits\n"
      "for SET.lock (or fails with --no-wait).\n\n"
      "Examples: simdex add docs.sdxs day1.tsv\n"
      "          simdex remove docs.sdxs 17 42\n"
      "          simdex merge docs.sdxs");
  add_set_write_options(*cmd, *args);
  cmd->add_option("input", args->input, "Input file, or - for stdin (default)");
  add_table_options(*cmd, args->tables, TablesOf::set_member,
                    "Table scheme of the new member (see `simdex build --help`)");
  cmd->add_flag("--no-merge", args->no_merge, "Do not merge members of similar size after the add");
  cmd->add_flag("--text", args->text, "INPUT holds documents: fingerprint them first");
  add_text_options(*cmd, args->text_options);
  cmd->get_option("--key-map")
      ->description(
          "Also write the key map (ID<TAB>KEY lines, spec/KEYS.md) of the documents' string keys and "
          "paths here. Either way the set's key map, SET.keys.tsv (what --keys reads), is extended by them "
          "(and by INPUT.keys.tsv, written by `simdex fingerprint`, for fingerprint lines)");
  cmd->callback([args] {
    args->text_options.threads = args->threads;
    run_add(*args);
  });
}

}  // namespace simdex::cli
