// simdex verify: reads every byte of an index and checks it against the spec.

#include <optional>

#include "cli/commands.h"
#include "cli/index_input.h"
#include "cli/keys_option.h"
#include "cli/output.h"
#include "fingerprint/key_map_file.h"
#include "simdex/index.h"

namespace simdex::cli {

namespace {
// --keys: the key map read whole, every line checked (spec/KEYS.md), a chunk at a time. Lookups
// (`query --keys`) check only the lines they read.
struct KeyMapReport {
  std::string path;
  std::uint64_t keys = 0;
  std::string problem;      // empty when the map is well formed
  errc code = errc::input;  // of the problem: input (a bad line) or io (the map cannot be read)
};

std::optional<KeyMapReport> verify_key_map(const KeysArg& arg, const std::string& index) {
  if (!keys_wanted(arg)) return std::nullopt;
  KeyMapReport r;
  r.path = key_map_file(arg, index);
  try {
    KeyMapFile file(r.path);
    while (!file.read([&](std::uint64_t, std::string_view) { ++r.keys; }).empty()) {
    }
  } catch (const Error& e) {
    if (e.code() != errc::input && e.code() != errc::io) throw;
    r.problem = e.what();  // a map that is missing is as bad as one with a bad line, and told alike
    r.code = e.code();
  }
  return r;
}

// {"index":PATH,"ok":B,"bytes_checked":N,"blocks_checked":N,"problems":[{"rule":R,"where":W,"what":M}],
//  "unchecked":[...]}: the same facts as the text report, on one line.
void print_json(Output& out, const std::string& path, const VerifyReport& r,
                const std::optional<KeyMapReport>& keys) {
  auto& b = out.buffer();
  b.append(std::string_view(R"({"index":)"));
  append_json_string(b, path);
  fmt::format_to(fmt::appender(b), R"(,"ok":{},"bytes_checked":{},"blocks_checked":{})", r.ok(),
                 r.bytes_checked, r.blocks_checked);
  auto list = [&](const char* name, const std::vector<Problem>& problems) {
    fmt::format_to(fmt::appender(b), R"(,"{}":[)", name);
    for (std::size_t i = 0; i < problems.size(); ++i) {
      b.append(std::string_view(i ? R"(,{"rule":)" : R"({"rule":)"));
      append_json_string(b, errc_name(problems[i].code));
      b.append(std::string_view(R"(,"where":)"));
      append_json_string(b, problems[i].where);
      b.append(std::string_view(R"(,"what":)"));
      append_json_string(b, problems[i].what);
      b.push_back('}');
    }
    b.push_back(']');
  };
  list("problems", r.problems);
  list("unchecked", r.unchecked);
  if (keys) {
    b.append(std::string_view(R"(,"key_map":{"path":)"));
    append_json_string(b, keys->path);
    fmt::format_to(fmt::appender(b), R"(,"ok":{},"keys":{},"problem":)", keys->problem.empty(), keys->keys);
    if (keys->problem.empty())
      b.append(std::string_view("null"));
    else
      append_json_string(b, keys->problem);
    b.push_back('}');
  }
  out.print("}}\n");
}

void run_verify(const std::string& path, bool json, const KeysArg& keys_arg) {
  const std::optional<KeyMapReport> keys = verify_key_map(keys_arg, path);
  Output out;
  VerifyReport report;
  bool opened = true;
  std::optional<Error> unreadable;  // the index could not be read (io): no verdict, but --json tells
  try {
    report = IndexInput(path)->verify();
  } catch (const Error& e) {
    // usage (the index is standard output's file: format/standard_output_guard.h): no verdict, and
    // none may be printed, into that file
    if ((e.code() == errc::io && !json) || e.code() == errc::usage) throw;
    if (e.code() == errc::io) unreadable = e;
    opened = false;
    report.problems.push_back({e.code(), "opening", e.what()});
  }
  if (json) {
    print_json(out, path, report, keys);
  } else if (!opened) {
    out.print("{}: BAD\n  {}\n", printable(path), printable(report.problems.front().what));
  } else if (report.ok()) {
    for (const auto& u :
         report.unchecked)  // not a failure: the file is neither accepted nor rejected by the rule
      std::cerr << "simdex: warning: rule " << errc_name(u.code) << " unchecked at " << u.where << ": "
                << printable(u.what) << "\n";
    // The header's bytes were checked at open; these are the sections' (checksums recomputed).
    out.print("{}: OK ({} section bytes, {} block{} checked{})\n", printable(path), report.bytes_checked,
              report.blocks_checked, plural_s(report.blocks_checked),
              report.unchecked.empty() ? "" : "; some rules unchecked, see stderr");
  } else {
    out.print("{}: BAD, {}{} problem(s)\n", printable(path), report.problems.size(),
              report.problems.size() >= 100 ? "+" : "");
    for (const auto& p : report.problems)
      out.print("  {} at {}: {}\n", errc_name(p.code), p.where, printable(p.what));
  }
  if (keys && !json) {
    if (keys->problem.empty())
      out.print("{}: OK ({} keys checked)\n", printable(keys->path), keys->keys);
    else
      out.print("{}: BAD\n  {}\n", printable(keys->path), printable(keys->problem));
  }
  out.close();
  if (unreadable) throw *unreadable;
  if (!report.ok()) throw Error(report.problems.front().code, "'" + path + "' failed verification");
  if (keys && !keys->problem.empty()) throw Error(keys->code, "'" + keys->path + "' failed verification");
}
}  // namespace

void add_verify_command(CLI::App& app) {
  auto path = std::make_shared<std::string>();
  auto json = std::make_shared<bool>(false);
  auto keys = std::make_shared<KeysArg>();
  auto* cmd = app.add_subcommand("verify", "Check every byte of an index: checksums and structure");
  cmd->footer(
      "Prints `INDEX: OK (...)` and exits 0 only when every checksum and every rule of spec/FORMAT.md\n"
      "holds; otherwise prints each problem (rule name, where, what) and exits 1.\n"
      "With --json one line "
      "{\"index\":I,\"ok\":B,\"bytes_checked\":N,\"blocks_checked\":N,\"problems\":[{\"rule\":R,\n"
      "\"where\":W,\"what\":M},...],\"unchecked\":[...]} (the exit status is the same; an index that\n"
      "cannot be read, a missing file, is the problem of rule \"io\" at \"opening\").\n"
      "Opening an index checks only its header and layout; run verify after copying files around.\n"
      "--keys also reads the key map beside the index (INDEX.keys.tsv, a set's SET.keys.tsv; or FILE\n"
      "with --keys=FILE) and checks every line of it, which lookups (query --keys) do not: one more\n"
      "line `MAP: OK (N keys checked)` or `MAP: BAD` and what is wrong, with --json a field\n"
      "\"key_map\":{\"path\":P,\"ok\":B,\"keys\":N,\"problem\":M or null}; exit 1 when it is bad (or\n"
      "missing).\n"
      "INDEX - reads the index from stdin: `simdex build -o - in.tsv | simdex verify -`.");
  cmd->add_option("index", *path, "Index file, or - to read it from stdin")->required();
  cmd->add_flag("--json", *json, "One JSON object");
  // A flag that takes a value only as --keys=FILE, as the --keys of the commands that print keys.
  keys->option =
      cmd->add_flag("--keys", keys->file,
                    "Also check every line of the key map beside the index (INDEX.keys.tsv) or, with "
                    "--keys=FILE, of FILE (spec/KEYS.md)");
  cmd->callback([path, json, keys] { run_verify(*path, *json, *keys); });
}

}  // namespace simdex::cli
