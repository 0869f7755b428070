#include "bench/corpus.h"

#include <cstdlib>
#include <fstream>
#include <sstream>

#include "simdex/documents.h"
#include "simdex/error.h"

namespace simdex::bench {

std::string corpus_dir(const std::string& dir) {
  if (!dir.empty()) return dir;
  if (const char* root = std::getenv("SIMDEX_SOURCE_DIR")) return std::string(root) + "/data/corpus";
  return SIMDEX_DEFAULT_SOURCE_DIR "/data/corpus";
}

Corpus load_corpus(const std::string& dir) {
  Corpus c;
  const std::string docs_path = dir + "/docs.jsonl.gz";
  DocumentSource docs(docs_path, {.format = DocumentFormat::jsonl});
  Document doc;
  while (docs.next(doc)) {
    if (doc.id != c.texts.size())
      throw Error(errc::input, docs_path + ":" + std::to_string(doc.line) + ": ids must be 0, 1, 2, ...");
    c.texts.emplace_back(doc.text);
  }
  c.langs.resize(c.texts.size());

  auto lines = [](const std::string& path, auto&& each) {
    std::ifstream f(path);
    if (!f) throw Error(errc::io, "cannot open " + path);
    std::string line;
    for (std::uint64_t no = 1; std::getline(f, line); ++no)
      if (!line.empty() && line[0] != '#') each(line, no);
  };
  lines(dir + "/truth.tsv", [&](const std::string& line, std::uint64_t no) {
    std::istringstream s(line);
    std::uint64_t a = 0, b = 0;
    std::string kind;
    if (!(s >> a >> b >> kind) || a >= b || b >= c.texts.size())
      throw Error(errc::input, dir + "/truth.tsv:" + std::to_string(no) +
                                   ": expected ID_A<TAB>ID_B<TAB>KIND, ID_A < ID_B");
    c.truth.insert({a, b});
    c.truth_kinds.push_back({{a, b}, kind});
  });
  std::ifstream meta(dir + "/meta.tsv");
  if (meta) {
    lines(dir + "/meta.tsv", [&](const std::string& line, std::uint64_t) {
      std::istringstream s(line);
      std::uint64_t id = 0;
      std::string lang;
      if (s >> id >> lang && id < c.langs.size()) c.langs[id] = lang;
    });
  }
  return c;
}

}  // namespace simdex::bench
