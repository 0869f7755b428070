// simdex verify: reads every byte of an index and checks it against the spec.

#include "cli/commands.h"
#include "cli/output.h"
#include "simdex/index.h"

namespace simdex::cli {

namespace {
void run_verify(const std::string& path) {
  Output out;
  VerifyReport report;
  try {
    report = Index::open(path).verify();
  } catch (const Error& e) {
    if (e.code() == errc::io) throw;
    out.print("{}: BAD\n  {}\n", printable(path), printable(e.what()));
    out.close();
    throw Error(e.code(), "'" + path + "' failed verification");
  }
  for (const auto& u :
       report.unchecked)  // not a failure: the file is neither accepted nor rejected by the rule
    std::cerr << "simdex: warning: rule " << errc_name(u.code) << " unchecked at " << u.where << ": "
              << printable(u.what) << "\n";
  if (report.ok()) {
    out.print("{}: OK ({} bytes, {} blocks checked{})\n", printable(path), report.bytes_checked,
              report.blocks_checked, report.unchecked.empty() ? "" : "; some rules unchecked, see stderr");
    return out.close();
  }
  out.print("{}: BAD, {}{} problem(s)\n", printable(path), report.problems.size(),
            report.problems.size() >= 100 ? "+" : "");
  for (const auto& p : report.problems)
    out.print("  {} at {}: {}\n", errc_name(p.code), p.where, printable(p.what));
  out.close();
  throw Error(report.problems.front().code, "'" + path + "' failed verification");
}
}  // namespace

void add_verify_command(CLI::App& app) {
  auto path = std::make_shared<std::string>();
  auto* cmd = app.add_subcommand("verify", "Check every byte of an index: checksums and structure");
  cmd->footer(
      "Prints `INDEX: OK (...)` and exits 0 only when every checksum and every rule of spec/FORMAT.md\n"
      "holds; otherwise prints each problem (rule name, where, what) and exits 1.\n"
      "Opening an index checks only its header and layout; run verify after copying files around.");
  cmd->add_option("index", *path, "Index file")->required();
  cmd->callback([path] { run_verify(*path); });
}

}  // namespace simdex::cli
