// simdex.dedup over a file: simdex::find_duplicates / simdex::dedup (the engine of `simdex dedup`)
// with the GIL released; the result goes back as plain tuples of numpy arrays that
// simdex/__init__.py turns into a DedupResult.
#include "simdex/dedup.h"

#include <optional>
#include <string>
#include <vector>

#include "python/src/bindings.h"

namespace simdex::python {

namespace {

// A key as str: UTF-8, with bytes that are not (a directory's odd file names) as surrogate escapes.
py::object key_str(const std::string& key) {
  PyObject* s = PyUnicode_DecodeUTF8(key.data(), static_cast<Py_ssize_t>(key.size()), "surrogateescape");
  if (!s) throw py::error_already_set();
  return py::reinterpret_steal<py::object>(s);
}

// (documents, kept document, keys or None, distances, fingerprints, ids, lines) of one cluster.
py::tuple cluster_tuple(const DedupCluster& c) {
  const std::size_t n = c.members.size();
  std::vector<std::int64_t> documents(n);
  std::vector<std::int32_t> distances(n);
  std::vector<std::uint64_t> fingerprints(n), ids(n), lines(n);
  bool keyed = false;
  for (std::size_t i = 0; i < n; ++i) {
    const DedupMember& m = c.members[i];
    documents[i] = static_cast<std::int64_t>(m.document);
    distances[i] = static_cast<std::int32_t>(m.distance);
    fingerprints[i] = m.fingerprint;
    ids[i] = m.id;
    lines[i] = m.line;
    keyed = keyed || m.id_kind == IdKind::key;
  }
  py::object keys = py::none();
  if (keyed) {
    py::list list;
    for (const DedupMember& m : c.members)
      list.append(m.id_kind == IdKind::key ? key_str(m.key) : py::none());
    keys = list;
  }
  return py::make_tuple(to_numpy(std::move(documents)), py::int_(c.members[c.kept].document), keys,
                        to_numpy(std::move(distances)), to_numpy(std::move(fingerprints)),
                        to_numpy(std::move(ids)), to_numpy(std::move(lines)));
}

// (documents, removed documents, k, keep policy name, clusters) of simdex/__init__.py's dedup.
py::tuple dedup_file(const std::string& source, const std::optional<std::string>& output, unsigned k,
                     const std::string& keep, unsigned shingle, const std::string& weighting,
                     std::vector<std::string> stopwords, const std::string& input_format,
                     const std::string& id_field, const std::string& text_field,
                     const std::optional<std::string>& index, std::uint64_t memory, unsigned threads,
                     const std::optional<std::string>& temp_dir) {
  DedupOptions o;
  o.documents.format = document_format(input_format);
  o.documents.id_field = id_field;
  o.documents.text_field = text_field;
  o.fingerprint = fingerprint_options(shingle, weighting, std::move(stopwords));
  o.k = k;
  o.keep = keep_policy(keep);
  o.index = index.value_or("");
  o.memory_bytes = memory;
  o.threads = threads;
  o.temp_dir = temp_dir.value_or("");
  DedupResult r;
  {
    py::gil_scoped_release unlocked;
    r = output ? dedup(source, *output, o) : find_duplicates(source, o);
  }
  py::list clusters;
  for (const DedupCluster& c : r.clusters) clusters.append(cluster_tuple(c));
  std::vector<std::uint64_t> removed_u64 = r.removed_documents();
  std::vector<std::int64_t> removed(removed_u64.begin(), removed_u64.end());
  return py::make_tuple(py::int_(r.documents), to_numpy(std::move(removed)), py::int_(r.k),
                        py::str(std::string(keep_policy_name(r.keep))), clusters);
}

}  // namespace

void bind_dedup(py::module_& m) {
  m.attr("DOCUMENT_K") = kDocumentK;
  py::list policies;
  for (KeepPolicy p : kKeepPolicies) policies.append(std::string(keep_policy_name(p)));
  m.attr("KEEP_POLICIES") = py::tuple(policies);
  m.def("dedup_file", &dedup_file, py::arg("source"), py::arg("output"), py::arg("k"), py::arg("keep"),
        py::arg("shingle"), py::arg("weighting"), py::arg("stopwords"), py::arg("input_format"),
        py::arg("id_field"), py::arg("text_field"), py::arg("index"), py::arg("memory"), py::arg("threads"),
        py::arg("temp_dir"));
}

}  // namespace simdex::python
