// simdex verify: reads every byte of an index and checks it against the spec.

#include "cli/commands.h"
#include "cli/index_input.h"
#include "cli/output.h"
#include "simdex/index.h"

namespace simdex::cli {

namespace {
// {"index":PATH,"ok":B,"bytes_checked":N,"blocks_checked":N,"problems":[{"rule":R,"where":W,"what":M}],
//  "unchecked":[...]}: the same facts as the text report, on one line.
void print_json(Output& out, const std::string& path, const VerifyReport& r) {
  auto& b = out.buffer();
  b.append(std::string_view(R"({"index":)"));
  append_json_string(b, path);
  fmt::format_to(std::back_inserter(b), R"(,"ok":{},"bytes_checked":{},"blocks_checked":{})", r.ok(),
                 r.bytes_checked, r.blocks_checked);
  auto list = [&](const char* name, const std::vector<Problem>& problems) {
    fmt::format_to(std::back_inserter(b), R"(,"{}":[)", name);
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
  out.print("}}\n");
}

void run_verify(const std::string& path, bool json) {
  Output out;
  VerifyReport report;
  bool opened = true;
  try {
    report = IndexInput(path)->verify();
  } catch (const Error& e) {
    if (e.code() == errc::io) throw;
    opened = false;
    report.problems.push_back({e.code(), "opening", e.what()});
  }
  if (json) {
    print_json(out, path, report);
  } else if (!opened) {
    out.print("{}: BAD\n  {}\n", printable(path), printable(report.problems.front().what));
  } else if (report.ok()) {
    for (const auto& u :
         report.unchecked)  // not a failure: the file is neither accepted nor rejected by the rule
      std::cerr << "simdex: warning: rule " << errc_name(u.code) << " unchecked at " << u.where << ": "
                << printable(u.what) << "\n";
    out.print("{}: OK ({} bytes, {} blocks checked{})\n", printable(path), report.bytes_checked,
              report.blocks_checked, report.unchecked.empty() ? "" : "; some rules unchecked, see stderr");
  } else {
    out.print("{}: BAD, {}{} problem(s)\n", printable(path), report.problems.size(),
              report.problems.size() >= 100 ? "+" : "");
    for (const auto& p : report.problems)
      out.print("  {} at {}: {}\n", errc_name(p.code), p.where, printable(p.what));
  }
  out.close();
  if (!report.ok()) throw Error(report.problems.front().code, "'" + path + "' failed verification");
}
}  // namespace

void add_verify_command(CLI::App& app) {
  auto path = std::make_shared<std::string>();
  auto json = std::make_shared<bool>(false);
  auto* cmd = app.add_subcommand("verify", "Check every byte of an index: checksums and structure");
  cmd->footer(
      "Prints `INDEX: OK (...)` and exits 0 only when every checksum and every rule of spec/FORMAT.md\n"
      "holds; otherwise prints each problem (rule name, where, what) and exits 1.\n"
      "With --json one line "
      "{\"index\":I,\"ok\":B,\"bytes_checked\":N,\"blocks_checked\":N,\"problems\":[{\"rule\":R,\n"
      "\"where\":W,\"what\":M},...],\"unchecked\":[...]} (the exit status is the same).\n"
      "Opening an index checks only its header and layout; run verify after copying files around.\n"
      "INDEX - reads the index from stdin: `simdex build -o - in.tsv | simdex verify -`.");
  cmd->add_option("index", *path, "Index file, or - to read it from stdin")->required();
  cmd->add_flag("--json", *json, "One JSON object");
  cmd->callback([path, json] { run_verify(*path, *json); });
}

}  // namespace simdex::cli
