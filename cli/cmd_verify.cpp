// simdex verify: reads every byte of an index and checks it against the spec.
#include <iostream>

#include "cli/commands.h"
#include "simdex/index.h"

namespace simdex::cli {

namespace {
void run_verify(const std::string& path) {
  VerifyReport report;
  try {
    report = Index::open(path).verify();
  } catch (const Error& e) {
    if (e.code() == errc::io) throw;
    std::cout << path << ": BAD\n  " << e.what() << "\n";
    throw Error(e.code(), "'" + path + "' failed verification");
  }
  for (const auto& u : report.unchecked)  // not a failure: the file is neither accepted nor rejected by the rule
    std::cerr << "simdex: warning: rule " << errc_name(u.code) << " unchecked at " << u.where << ": " << u.what << "\n";
  if (report.ok()) {
    std::cout << path << ": OK (" << report.bytes_checked << " bytes, " << report.blocks_checked
              << " blocks checked" << (report.unchecked.empty() ? "" : "; some rules unchecked, see stderr") << ")\n";
    return;
  }
  std::cout << path << ": BAD, " << report.problems.size() << (report.problems.size() >= 100 ? "+" : "")
            << " problem(s)\n";
  for (const auto& p : report.problems) std::cout << "  " << errc_name(p.code) << " at " << p.where << ": " << p.what << "\n";
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
