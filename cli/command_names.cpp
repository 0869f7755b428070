#include "cli/command_names.h"

#include <algorithm>
#include <cctype>
#include <sstream>
#include <string_view>
#include <vector>

#include "cli/output.h"
#include "simdex/error.h"

namespace simdex::cli {

namespace {
// Edits (insert, delete, substitute, swap two neighbours) from a to b: how near a typo is.
std::size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<std::vector<std::size_t>> d(a.size() + 1, std::vector<std::size_t>(b.size() + 1));
  for (std::size_t i = 0; i <= a.size(); ++i) d[i][0] = i;
  for (std::size_t j = 0; j <= b.size(); ++j) d[0][j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i)
    for (std::size_t j = 1; j <= b.size(); ++j) {
      d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + (a[i - 1] != b[j - 1])});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1])
        d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
    }
  return d[a.size()][b.size()];
}

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

// The name of `names` nearest to `word`, at most 2 edits away; "" when none is. Case counts last
// (-K is nearer -k than -h).
std::string nearest(const std::string& word, const std::vector<std::string>& names) {
  std::string best_name;
  std::size_t best = 3 * 2;
  for (const std::string& name : names)
    if (const std::size_t d = 2 * edit_distance(lower(word), lower(name)) + (edit_distance(word, name) > 0);
        d < best) {
      best = d;
      best_name = name;
    }
  return best_name;
}
}  // namespace

void require_command(const CLI::App& app, const std::string& word) {
  std::vector<std::string> names;
  for (const CLI::App* c : app.get_subcommands([](const CLI::App*) { return true; })) {
    if (c->get_name() == word) return;
    names.push_back(c->get_name());
  }
  const std::string guess = nearest(word, names);
  std::string list;
  for (const std::string& n : names) list += " " + n;
  throw Error(errc::usage, "no command '" + word + "'" +
                               (guess.empty() ? "" : " (did you mean " + guess + "?)") +
                               "; the commands are:" + list);
}

void answer_first_of_help_and_version(int argc, const char* const* argv) {
  bool help = false;
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    if (arg == "--help" || arg == "-h") help = true;
    if (arg == "--version" && help) throw CLI::CallForHelp();
    // (`simdex -h build`: CLI11 answers with the command's help)
    if (arg == "--version" || arg == "--" || !arg.starts_with('-')) return;
  }
}

namespace {
// The command the arguments named (the app itself when none), and how to get its help.
const CLI::App* parsed_command(const CLI::App& app) {
  const CLI::App* cmd = &app;
  for (const CLI::App* sub : app.get_subcommands())
    if (sub->parsed()) cmd = sub;
  return cmd;
}
std::string help_of(const CLI::App& app, const CLI::App* cmd) {
  return "`" + app.get_name() + (cmd == &app ? "" : " " + cmd->get_name()) + " --help`";
}
}  // namespace

std::string unknown_options(const CLI::App& app) {
  const CLI::App* cmd = parsed_command(app);
  std::vector<std::string> names;
  for (const CLI::Option* o : cmd->get_options()) {
    for (const std::string& n : o->get_lnames()) names.push_back("--" + n);
    for (const std::string& n : o->get_snames()) names.push_back("-" + n);
  }
  // What the app itself did not take, when a command was named: given before the command.
  const std::vector<std::string> before = cmd == &app ? std::vector<std::string>() : app.remaining(false);
  std::string message;
  for (const std::string& arg : app.remaining(true)) {
    if (arg.size() < 2 || arg[0] != '-') continue;
    const std::string name = arg.substr(0, arg.find('='));
    message += message.empty() ? "" : "; ";
    if (std::find(before.begin(), before.end(), arg) != before.end() &&
        std::find(names.begin(), names.end(), name) != names.end()) {
      message += "option " + name + " comes before the command: give it after `" + app.get_name() + " " +
                 cmd->get_name() + "`";
      continue;
    }
    const std::string guess = nearest(name, names);
    message += "unknown option " + name + (guess.empty() ? "" : " (did you mean " + guess + "?)");
  }
  if (!message.empty()) message += " (" + help_of(app, cmd) + " lists them)";
  return message;
}

int report_parse_error(CLI::App& app, const CLI::ParseError& e, std::ostream& out, std::ostream& err) {
  std::ostringstream text;
  // An unknown option is the cause whatever CLI11 reported (a required argument is missing when
  // the option took its place), so it comes first.
  const std::string unknown = e.get_exit_code() != 0 ? unknown_options(app) : std::string();
  int rc = 2;
  if (!unknown.empty())
    text << app.get_name() << ": usage: " << unknown << "\n";
  else if ((rc = app.exit(e, out, text) == 0 ? 0 : 2) == 2) {
    // CLI11's message, then its "Run with --help for more information.": one line, as simdex's own.
    std::string message = text.str().substr(0, text.str().find('\n'));
    if (message == "A subcommand is required") message = "a command is required";
    // "Could not convert: --threads = 99999999999": a number out of its type's range or no number.
    if (const std::string head = "Could not convert: ", eq = " = ";
        message.starts_with(head) && message.find(eq) != std::string::npos) {
      const std::size_t at = message.find(eq);
      message = message.substr(head.size(), at - head.size()) + " " + message.substr(at + eq.size()) +
                ": not a value it takes (a number too large, negative or not a number)";
    }
    text.str("");
    text << app.get_name() << ": usage: " << message << " (" << help_of(app, parsed_command(app))
         << " says more)\n";
  }
  std::istringstream lines(text.str());
  for (std::string line; std::getline(lines, line);) err << printable(line) << "\n";
  return rc;
}

}  // namespace simdex::cli
