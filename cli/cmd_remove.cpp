// simdex remove: ids out of an index set (a tombstone file and a new manifest).
#include <charconv>
#include <chrono>
#include <vector>

#include "cli/commands.h"
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

void run_remove(const RemoveArgs& a) {
  const auto start = std::chrono::steady_clock::now();
  std::vector<uint64_t> ids;
  auto read_file = [&](const std::string& path) {
    io::InputStream in(path);
    std::string line;
    io::reporting_corrupt_stream(in, [&] {
      while (in.next_line(line)) {
        const std::string_view text = chomp(in.line_number() == 1 ? drop_byte_order_mark(line) : line);
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
  for (const std::string& key : a.keys) ids.push_back(key_id(key));  // spec/KEYS.md: the key's id
  if (ids.empty())
    throw Error(errc::usage,
                "no ids to remove: give them as arguments, with --from FILE (- for stdin) or as --key KEY");
  Progress progress(Progress::wanted(a.quiet, a.progress));
  SetWriter set(a.set, set_writer_options(a, progress));
  const SetChange change = set.remove(ids);  // merges first when the tombstones are full
  progress.finish();
  report_set_change(a, "removed ids", change,
                    std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
}
}  // namespace

void add_remove_command(CLI::App& app) {
  auto args = std::make_shared<RemoveArgs>();
  auto* cmd = app.add_subcommand("remove", "Remove ids from an index set");
  cmd->footer(
      "The ids (decimal) come as arguments; an argument that is not a number is a file of ids, one a line\n"
      "(- for stdin; .gz/.zst read), as is --from FILE.\n"
      "Every (fingerprint, id) pair with a removed id stops being live; a fingerprint left with no live\n"
      "id disappears from answers. An id added again later is live again (the later operation wins).\n"
      "The removal is a small tombstone file and a new manifest; `simdex merge` drops the pairs for good.\n\n"
      "A document added with a string key (JSON Lines \"id\": \"...\", a directory's path) has the id\n"
      "XXH3-64 of the key (spec/KEYS.md): --key KEY removes it by its key.\n\n"
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
