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
                                       std::vector<std::string> stopwords) {
  FingerprintOptions o;
  if (shingle < 1 || shingle > FingerprintOptions::max_shingle_size)
    throw Error(errc::usage, "shingle must be 1.." + std::to_string(FingerprintOptions::max_shingle_size));
  o.shingle_size = shingle;
  if (weighting == "binary")
    o.weighting = Weighting::binary;
  else if (weighting != "frequency")
    throw Error(errc::usage, "weighting must be 'frequency' or 'binary', not '" + weighting + "'");
  o.stopwords = std::move(stopwords);
  return o;
}

std::string_view utf8_of(py::handle item, std::size_t position, py::object& owner) {
  Py_ssize_t size = 0;
  if (PyUnicode_Check(item.ptr())) {
    if (const char* p = PyUnicode_AsUTF8AndSize(item.ptr(), &size)) {
      owner = py::reinterpret_borrow<py::object>(item);
      return {p, static_cast<std::size_t>(size)};
    }
    // Lone surrogates have no UTF-8: their bytes go through as they are and the fingerprint's
    // step 1 (UTF-8 repair) replaces them, as it does any ill-formed input.
    PyErr_Clear();
    owner =
        py::reinterpret_steal<py::object>(PyUnicode_AsEncodedString(item.ptr(), "utf-8", "surrogatepass"));
    if (!owner) throw py::error_already_set();
    item = owner;
  }
  if (PyBytes_Check(item.ptr())) {
    if (!owner) owner = py::reinterpret_borrow<py::object>(item);
    return {PyBytes_AS_STRING(item.ptr()), static_cast<std::size_t>(PyBytes_GET_SIZE(item.ptr()))};
  }
  throw py::type_error("texts must hold str (or UTF-8 bytes); item " + std::to_string(position) + " is " +
                       std::string(py::str(py::type::handle_of(item).attr("__name__"))));
}

namespace {

py::array_t<std::uint64_t> fingerprint_texts(const py::iterable& texts, unsigned shingle,
                                             const std::string& weighting, std::vector<std::string> stopwords,
                                             unsigned threads) {
  const FingerprintOptions options = fingerprint_options(shingle, weighting, std::move(stopwords));
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
    batch.push_back(utf8_of(item, out.size() + batch.size(), owner));
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
