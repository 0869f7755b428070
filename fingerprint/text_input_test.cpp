// The CLI side: `simdex fingerprint` and the text flags that build/query share (cli/text_options).
#include <doctest/doctest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "cli/commands.h"
#include "cli/text_options.h"
#include "simdex/error.h"
#include "simdex/fingerprint.h"

namespace fs = std::filesystem;

namespace {

struct TempDir {
  fs::path path;
  TempDir() {
    path = fs::temp_directory_path() / ("simdex-fp-test-" + std::to_string(::getpid()));
    fs::remove_all(path);
    fs::create_directories(path);
  }
  ~TempDir() { fs::remove_all(path); }
  std::string write(const std::string& name, const std::string& content) const {
    const fs::path p = path / name;
    fs::create_directories(p.parent_path());
    std::ofstream(p, std::ios::binary) << content;
    return p.string();
  }
};

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

void run(std::vector<std::string> argv) {
  CLI::App app;
  simdex::cli::add_fingerprint_command(app);
  argv.insert(argv.begin(), "simdex");
  std::vector<const char*> c;
  for (auto& a : argv) c.push_back(a.c_str());
  app.parse(static_cast<int>(c.size()), c.data());
}

std::string line(std::uint64_t fp, std::uint64_t id) {
  char buf[48];
  std::snprintf(buf, sizeof buf, "0x%016llx\t%llu\n", static_cast<unsigned long long>(fp),
                static_cast<unsigned long long>(id));
  return buf;
}

}  // namespace

TEST_CASE("fingerprint: JSON Lines in, FINGERPRINT<TAB>ID out") {
  TempDir t;
  const auto in = t.write("docs.jsonl", "{\"id\": 42, \"text\": \"Hello, World!\"}\n{\"id\": 7, \"text\": \"\"}\n");
  const auto out = (t.path / "out.fp").string();
  run({"fingerprint", in, "-o", out});
  CHECK(slurp(out) == line(simdex::fingerprint("Hello, World!"), 42) + line(0, 7));
}

TEST_CASE("fingerprint: plain lines and options") {
  TempDir t;
  const auto in = t.write("docs.txt", "the cat sat on the mat\r\nsecond line\n");
  const auto out = (t.path / "out.fp").string();
  run({"fingerprint", "--input-format", "lines", "--shingle", "1", "--stopwords", "english", in, "-o", out});
  simdex::FingerprintOptions o;
  o.shingle_size = 1;
  o.stopwords = simdex::english_stopwords();
  simdex::Fingerprinter f(o);
  CHECK(slurp(out) == line(f.fingerprint("the cat sat on the mat"), 0) + line(f.fingerprint("second line"), 1));
}

TEST_CASE("fingerprint: a directory, with its path listing beside the output") {
  TempDir t;
  t.write("in/b.txt", "beta text");
  t.write("in/a.txt", "alpha text");
  t.write("in/sub/c.txt", "gamma");
  const auto out = (t.path / "out.fp").string();
  run({"fingerprint", (t.path / "in").string(), "-o", out});
  CHECK(slurp(out) == line(simdex::fingerprint("alpha text"), 0) + line(simdex::fingerprint("beta text"), 1) +
                          line(simdex::fingerprint("gamma"), 2));
  CHECK(slurp(out + ".paths.tsv") == "0\ta.txt\n1\tb.txt\n2\tsub/c.txt\n");
}

TEST_CASE("for_each_text_fingerprint: errors carry their kind") {
  TempDir t;
  simdex::cli::TextOptions o;
  auto code_of = [&](const std::string& input, const std::string& beside) {
    try {
      simdex::cli::for_each_text_fingerprint(input, o, beside, [](std::uint64_t, std::uint64_t) {});
    } catch (const simdex::Error& e) {
      return std::string(simdex::errc_name(e.code())) + " " + e.what();
    }
    return std::string("ok");
  };
  const auto bad = t.write("bad.jsonl", "{\"id\": 1, \"text\": \"a\"}\n\n{\"id\": 2}\n");
  CHECK(code_of(bad, "").find("input") == 0);
  CHECK(code_of(bad, "").find("bad.jsonl:3: no field \"text\"") != std::string::npos);
  CHECK(code_of((t.path / "missing").string(), "").find("io") == 0);
  t.write("d/x.txt", "x");
  CHECK(code_of((t.path / "d").string(), "").find("usage") == 0);  // no place for the listing
  o.stopwords_file = (t.path / "none.txt").string();
  CHECK(code_of(bad, "").find("io") == 0);
  o.stopwords_file.clear();
  o.shingle_size = 0;
  CHECK(code_of(bad, "").find("usage") == 0);
}
