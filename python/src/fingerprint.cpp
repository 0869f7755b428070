// simdex.fingerprint: texts (str or bytes) to np.uint64, in batches: the GIL is held to read a
// batch's UTF-8 out of the Python objects, released while fingerprint_all works on all cores.
#include "simdex/fingerprint.h"

#include <string>
#include <string_view>
#include <vector>

#include "python/src/bindings.h"
#include "simdex/error.h"

namespace simdex::python {

FingerprintOptions fingerprint_options(unsigned shingle, const std::string& weighting,
                                       const py::list& stopwords) {
  FingerprintOptions o;
  if (shingle < 1 || shingle > FingerprintOptions::max_shingle_size)
    throw Error(errc::usage, "shingle must be 1.." + std::to_string(FingerprintOptions::max_shingle_size));
  o.shingle_size = shingle;
  if (weighting == "binary")
    o.weighting = Weighting::binary;
  else if (weighting != "frequency")
    throw Error(errc::usage, "weighting must be 'frequency' or 'binary', not '" + weighting + "'");
  for (const py::handle word : stopwords) {
    o.stopwords.push_back(utf8_bytes(word, "a stopword"));
    // A warning, not an error, as the CLI's: "don't" is two tokens and drops nothing.
    const std::string problem = stopword_problem(o.stopwords.back());
    if (!problem.empty()) {
      const py::object text = message_str("stopword " + problem);  // a bytes stopword may not be UTF-8
      // stacklevel 2: the line that called simdex.fingerprint (or dedup), not the wrapper's.
      if (PyErr_WarnFormat(PyExc_UserWarning, 2, "%U", text.ptr()) != 0) throw py::error_already_set();
    }
  }
  return o;
}

namespace {

py::array_t<std::uint64_t> fingerprint_texts(const py::iterable& texts, unsigned shingle,
                                             const std::string& weighting, const py::list& stopwords,
                                             unsigned threads) {
  const FingerprintOptions options = fingerprint_options(shingle, weighting, stopwords);
  constexpr std::size_t batch_texts = 1 << 16, batch_bytes = std::size_t{64} << 20;
  std::vector<std::uint64_t> out;
  std::vector<py::object> owners;
  std::vector<std::string_view> batch;
  std::size_t bytes = 0;
  auto flush = [&] {
    const std::size_t start = out.size();
    out.resize(start + batch.size());
    without_gil([&] { fingerprint_all(batch, std::span(out).subspan(start), options, threads); });
    batch.clear();
    owners.clear();
    bytes = 0;
    if (PyErr_CheckSignals() != 0) throw py::error_already_set();  // Ctrl-C between batches
  };
  for (py::handle item : texts) {
    py::object owner;
    batch.push_back(text_utf8(item, out.size() + batch.size(), owner));
    owners.push_back(std::move(owner));
    bytes += batch.back().size();
    if (batch.size() >= batch_texts || bytes >= batch_bytes) flush();
  }
  if (!batch.empty()) flush();
  return to_numpy(std::move(out));
}

}  // namespace

void bind_fingerprint(py::module_& m) {
  m.def("fingerprint_texts", &fingerprint_texts, py::arg("texts"), py::arg("shingle"), py::arg("weighting"),
        py::arg("stopwords"), py::arg("threads"));
  m.def("english_stopwords", &english_stopwords, "The built-in English stopword list (spec/FINGERPRINT.md).");
  m.def("unicode_version", &unicode_version,
        "The Unicode version of the character data fingerprints use, e.g. '15.0' (spec/FINGERPRINT.md: "
        "characters assigned after 15.0 may fingerprint differently with other versions).");
}

}  // namespace simdex::python
