// simdex remove: ids out of an index set (a tombstone file and a new manifest).
#include <algorithm>
#include <charconv>
#include <chrono>
#include <string>
#include <vector>

#include "cli/commands.h"
#include "cli/keys_option.h"
#include "cli/lines.h"
#include "cli/output.h"
#include "cli/set_output.h"
#include "io/input_stream.h"
#include "simdex/error.h"
#include "simdex/keys.h"
#include "simdex/set.h"

namespace simdex::cli {

namespace {
struct RemoveArgs : SetWriteArgs {
  std::vector<std::string> ids, keys;
  std::string from;
};

uint64_t parse_id(std::string_view text, const std::string& where) {
  uint64_t v = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size())
    throw Error(errc::input, where + ": '" + printable(text.substr(0, 40)) + "' is not a decimal 64-bit id");
  return v;
}

// The ids of --key KEY (spec/KEYS.md: XXH3-64 of the key), each checked against the set's key map,
// which holds every key ever added (add extends it before it publishes the member): a key it lacks
// was never added, so removing its id would silently do nothing (a mistyped key), and a key whose id
// the map holds for another key would remove that other document. Error(input) for either.
std::vector<uint64_t> ids_of_keys(const std::vector<std::string>& keys, const std::string& set) {
  std::vector<uint64_t> ids;
  if (keys.empty()) return ids;
  const std::optional<std::string> map_file = key_map_beside(set);
  if (!map_file)
    throw Error(errc::input, "--key: " + printable(set) + " has no key map (" + printable(key_map_path(set)) +
                                 "): no document was added to it with a string key, so no key names one "
                                 "of its documents; to remove documents by their ids: simdex remove " +
                                 printable(set) + " ID...; nothing was removed");
  const MappedKeyMap map(*map_file);
  std::string scratch;
  std::vector<std::string_view> unknown;
  for (const std::string& key : keys) {
    const uint64_t id = key_id(key);
    const std::optional<std::string_view> held = map.find(id, scratch);
    if (!held) {
      unknown.push_back(key);
      continue;
    }
    if (*held != key)
      throw Error(errc::input, "--key '" + printable(key) + "': its id " + std::to_string(id) +
                                   " is the key '" + printable(*held) + "' in " + printable(*map_file) +
                                   " (two keys with one id), which it would remove; nothing was removed");
    ids.push_back(id);
  }
  if (!unknown.empty()) {
    std::string listed;
    for (std::size_t i = 0; i < unknown.size() && i < 3; ++i)
      listed += (i ? ", '" : "'") + printable(unknown[i].substr(0, 80)) + "'";
    if (unknown.size() > 3) listed += " and " + std::to_string(unknown.size() - 3) + " more";
    throw Error(errc::input, "--key: no document of " + printable(set) + " was added with the key" +
                                 (unknown.size() > 1 ? "s " : " ") + listed + " (its keys are in " +
                                 printable(*map_file) + "); nothing was removed");
  }
  return ids;
}

void run_remove(const RemoveArgs& a) {
  const auto start = std::chrono::steady_clock::now();
  std::vector<uint64_t> ids;
  auto read_file = [&](const std::string& path) {
    io::InputStream in(path);
    std::string line;
    io::reporting_corrupt_stream(in, [&] {
      while (in.next_line(line)) {
        const std::string_view text = line_text(line, in.line_number());
        if (!is_blank(text))
          ids.push_back(parse_id(text, in.name() + ":" + std::to_string(in.line_number())));
      }
    });
  };
  for (std::size_t i = 0; i < a.ids.size(); ++i) {
    const std::string& arg = a.ids[i];
    const bool number = !arg.empty() && arg.find_first_not_of("0123456789") == std::string::npos;
    if (number) {
      ids.push_back(parse_id(arg, "argument " + std::to_string(i + 2)));
      continue;
    }
    try {
      read_file(arg);  // "-" or a file of ids
    } catch (const Error& e) {
      if (e.code() != errc::io || arg == "-") throw;
      throw Error(e.code(), e.detail() +
                                " (an argument that is not a decimal id names a file of ids; to remove a "
                                "document by its key: --key '" +
                                printable(std::string_view(arg).substr(0, 40)) + "')");
    }
  }
  if (!a.from.empty()) read_file(a.from);
  if (a.ids.empty() && a.from.empty() && a.keys.empty())
    throw Error(errc::usage,
                "no ids to remove: give them as arguments, with --from FILE (- for stdin) or as --key KEY");
  Progress progress(Progress::wanted(a.quiet, a.progress));
  SetWriter set(a.set, set_writer_options(a, progress));
  if (ids.empty() && a.keys.empty()) {  // files of ids that hold none (a day without removals), as add's
    (void)set.remove(ids);              // (there must be a set all the same)
    progress.finish();
    std::vector<std::string> files = a.ids;  // (none is a number: it would be an id)
    if (!a.from.empty()) files.push_back(a.from);
    report_set_unchanged(a, files, "ids");
    return;
  }
  // Under the lock: no add between the check and the removal. A set that does not exist has no keys to
  // check; remove() says it is missing.
  const std::vector<uint64_t> key_ids =
      set.exists() ? ids_of_keys(a.keys, a.set) : std::vector<uint64_t>(a.keys.size());
  ids.insert(ids.end(), key_ids.begin(), key_ids.end());
  const SetChange change = set.remove(ids);  // merges first when the tombstones are full
  progress.finish();
  std::sort(ids.begin(), ids.end());
  const auto distinct = static_cast<std::size_t>(std::unique(ids.begin(), ids.end()) - ids.begin());
  // Listed whether a member holds them or not: finding out would read every id of the set.
  report_set_change(a, "removed " + std::to_string(distinct) + " id" + plural_s(distinct), change, start);
}
}  // namespace

void add_remove_command(CLI::App& app) {
  auto args = std::make_shared<RemoveArgs>();
  auto* cmd = app.add_subcommand("remove", "Remove ids from an index set");
  cmd->footer(
      "The ids (decimal) come as arguments; an argument that is not a number is a file of ids, one a line\n"
      "(- for stdin; .gz/.zst read), as is --from FILE. Files that hold no ids (a day without removals)\n"
      "leave the set as it is, as an add of no pairs does.\n"
      "Every (fingerprint, id) pair with a removed id stops being live; a fingerprint left with no live\n"
      "id disappears from answers. An id added again later is live again (the later operation wins).\n"
      "The removal is a small tombstone file and a new manifest; `simdex merge` drops the pairs for good.\n"
      "An id that no member holds is listed all the same (nothing tells: that would read every id of\n"
      "the set); the summary counts the distinct ids given.\n\n"
      "A document added with a string key (JSON Lines \"id\": \"...\", a directory's path) has the id\n"
      "XXH3-64 of the key (spec/KEYS.md): --key KEY removes it by its key. A key that no document of\n"
      "the set was added with (none in its key map, SET.keys.tsv) is an error, and nothing is removed.\n\n"
      "Examples: simdex remove docs.sdxs 17 42\n"
      "          simdex remove docs.sdxs --from gone.txt\n"
      "          simdex remove docs.sdxs --key https://site.example/page --key docs/a.txt");
  add_set_write_options(*cmd, *args);
  cmd->add_option("ids", args->ids, "Ids to remove, or files of ids (- for stdin)");
  cmd->add_option("--from", args->from, "File of ids, one a line (- for stdin)");
  cmd->add_option("--key", args->keys, "A document's key (repeatable): removes the id of that key");
  cmd->callback([args] { run_remove(*args); });
}

}  // namespace simdex::cli
