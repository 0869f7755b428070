// Checks every golden vector of spec/FINGERPRINT.md, read from the spec itself so the document and
// the code cannot drift apart.
#include <doctest/doctest.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "simdex/fingerprint.h"

namespace {

struct Golden {
  std::string text, shingle, weighting, stopwords, expected, row;
};

std::string read_spec() {
  const char* root = std::getenv("SIMDEX_SOURCE_DIR");
  REQUIRE_MESSAGE(root != nullptr, "SIMDEX_SOURCE_DIR must name the repository");
  std::ifstream in(std::string(root) + "/spec/FINGERPRINT.md");
  REQUIRE_MESSAGE(in.good(), "cannot open spec/FINGERPRINT.md");
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// The spec's escapes: \xHH is one byte, \\ a backslash; everything else stands for itself.
std::string unescape(const std::string& s) {
  std::string out;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '\\' && i + 1 < s.size() && s[i + 1] == '\\') {
      out += '\\';
      ++i;
    } else if (s[i] == '\\' && i + 3 < s.size() && s[i + 1] == 'x') {
      out += static_cast<char>(std::stoi(s.substr(i + 2, 2), nullptr, 16));
      i += 3;
    } else {
      out += s[i];
    }
  }
  return out;
}

std::string trim(std::string s) {
  const auto b = s.find_first_not_of(' ');
  const auto e = s.find_last_not_of(' ');
  return b == std::string::npos ? "" : s.substr(b, e - b + 1);
}

// Rows of the table between the golden markers: | `text` | shingle | weighting | stopwords | fp |
std::vector<Golden> golden_vectors() {
  const std::string spec = read_spec();
  const auto begin = spec.find("<!-- golden:begin -->");
  const auto end = spec.find("<!-- golden:end -->");
  REQUIRE(begin != std::string::npos);
  REQUIRE(end != std::string::npos);
  std::istringstream rows(spec.substr(begin, end - begin));
  std::vector<Golden> out;
  std::string line;
  while (std::getline(rows, line)) {
    if (line.rfind("| `", 0) != 0) continue;  // header, separator, prose
    const auto close = line.find("` |", 3);
    REQUIRE_MESSAGE(close != std::string::npos, line);
    Golden g;
    g.row = line;
    g.text = unescape(line.substr(3, close - 3));
    std::vector<std::string> cells;
    std::istringstream rest(line.substr(close + 3));
    std::string cell;
    while (std::getline(rest, cell, '|')) cells.push_back(trim(cell));
    REQUIRE_MESSAGE(cells.size() >= 4, line);
    g.shingle = cells[0];
    g.weighting = cells[1];
    g.stopwords = cells[2];
    g.expected = cells[3];
    out.push_back(g);
  }
  return out;
}

std::string hex(std::uint64_t v) {
  char buf[19];
  std::snprintf(buf, sizeof buf, "0x%016llx", static_cast<unsigned long long>(v));
  return buf;
}

}  // namespace

TEST_CASE("golden vectors of spec/FINGERPRINT.md") {
  const auto vectors = golden_vectors();
  CHECK(vectors.size() >= 20);
  for (const Golden& g : vectors) {
    simdex::FingerprintOptions o;
    o.shingle_size = static_cast<unsigned>(std::stoul(g.shingle));
    REQUIRE((g.weighting == "frequency" || g.weighting == "binary"));
    o.weighting = g.weighting == "binary" ? simdex::Weighting::binary : simdex::Weighting::frequency;
    REQUIRE((g.stopwords == "none" || g.stopwords == "english"));
    if (g.stopwords == "english") o.stopwords = simdex::english_stopwords();
    simdex::Fingerprinter f(o);
    CHECK_MESSAGE(hex(f.fingerprint(g.text)) == g.expected, g.row);
  }
}
