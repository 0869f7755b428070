// simdex.dedup over a file or texts: simdex::find_duplicates / simdex::dedup (the engine of `simdex
// dedup`) with the GIL released; the result goes back as plain tuples of numpy arrays that
// simdex/__init__.py turns into a DedupResult.
#include "simdex/dedup.h"

#include <optional>
#include <string>
#include <vector>

#include "dedup/dedup_temp.h"
#include "python/src/bindings.h"

namespace simdex::python {

namespace {

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

DedupOptions options_of(unsigned k, const std::string& keep, unsigned shingle, const std::string& weighting,
                        const py::list& stopwords, const std::optional<std::string>& index,
                        std::uint64_t memory, unsigned threads, const std::optional<std::string>& temp_dir,
                        py::handle progress) {
  DedupOptions o;
  o.fingerprint = fingerprint_options(shingle, weighting, stopwords);
  o.k = k;
  o.keep = keep_policy(keep);
  o.index = index.value_or("");
  o.memory_bytes = memory;
  o.threads = threads;
  o.temp_dir = temp_dir.value_or("");
  o.progress = SignalCheck(progress);  // Ctrl-C and the caller's progress
  return o;
}

// (documents, removed documents, k, keep policy name, clusters, documents without words) of
// simdex/__init__.py's dedup.
py::tuple result_tuple(const DedupResult& r) {
  py::list clusters;
  for (const DedupCluster& c : r.clusters) clusters.append(cluster_tuple(c));
  std::vector<std::uint64_t> removed_u64 = r.removed_documents();
  std::vector<std::int64_t> removed(removed_u64.begin(), removed_u64.end());
  std::vector<std::int64_t> without_words(r.without_words.begin(), r.without_words.end());
  return py::make_tuple(py::int_(r.documents), to_numpy(std::move(removed)), py::int_(r.k),
                        py::str(std::string(keep_policy_name(r.keep))), clusters,
                        to_numpy(std::move(without_words)));
}

py::tuple dedup_file(const std::string& source, const std::optional<std::string>& output, unsigned k,
                     const std::string& keep, unsigned shingle, const std::string& weighting,
                     const py::list& stopwords, const std::optional<std::string>& index, std::uint64_t memory,
                     unsigned threads, const std::optional<std::string>& temp_dir,
                     const std::string& input_format, const std::string& id_field,
                     const std::string& text_field, const py::object& progress) {
  DedupOptions o =
      options_of(k, keep, shingle, weighting, stopwords, index, memory, threads, temp_dir, progress);
  o.documents.format = document_format(input_format);
  o.documents.id_field = id_field;
  o.documents.text_field = text_field;
  DedupResult r;
  without_gil([&] { r = output ? dedup(source, *output, o) : find_duplicates(source, o); });
  return result_tuple(r);
}

// The texts of an iterable, read in batches with the GIL held while the library works without it.
py::tuple dedup_texts(const py::iterable& texts, unsigned k, const std::string& keep, unsigned shingle,
                      const std::string& weighting, const py::list& stopwords,
                      const std::optional<std::string>& index, std::uint64_t memory, unsigned threads,
                      const std::optional<std::string>& temp_dir, const py::object& progress) {
  const DedupOptions o =
      options_of(k, keep, shingle, weighting, stopwords, index, memory, threads, temp_dir, progress);
  constexpr std::size_t batch_texts = 4096, batch_bytes = std::size_t{16} << 20;
  const py::iterator items = py::iter(texts);
  std::vector<py::object> owners;  // the batch's texts, alive until the next call
  std::size_t position = 0;
  const TextBatches next = [&](std::vector<std::string_view>& batch) {
    const GilTakenBack locked;
    owners.clear();
    if (PyErr_CheckSignals() != 0) throw py::error_already_set();  // Ctrl-C between batches
    for (std::size_t bytes = 0; batch.size() < batch_texts && bytes < batch_bytes;) {
      const py::object item = py::reinterpret_steal<py::object>(PyIter_Next(items.ptr()));
      if (!item) {
        if (PyErr_Occurred()) throw py::error_already_set();
        break;
      }
      py::object owner;
      batch.push_back(text_utf8(item, position++, owner));
      owners.push_back(std::move(owner));
      bytes += batch.back().size();
    }
  };
  DedupResult r;
  without_gil([&] { r = find_duplicates(next, o); });
  return result_tuple(r);
}

}  // namespace

void bind_dedup(py::module_& m) {
  m.attr("DOCUMENT_K") = kDocumentK;
  py::list policies;
  for (KeepPolicy p : kKeepPolicies) policies.append(std::string(keep_policy_name(p)));
  m.attr("KEEP_POLICIES") = py::tuple(policies);
  // The file dedup(texts, output) copies its texts to (they are read twice): the library's own
  // temporary file, removed at close(), on a signal and at the interpreter's exit, and by the next
  // run when a killed process left it.
  struct Spool {
    std::unique_ptr<writer::OwnedTemp> file;
  };
  py::class_<Spool>(m, "_Spool")
      .def_property_readonly("path", [](const Spool& s) { return s.file ? s.file->path() : std::string(); })
      .def("close", [](Spool& s) { s.file.reset(); });
  m.def(
      "dedup_spool",
      [](const std::optional<std::string>& temp_dir) {
        return Spool{dedup_temp_file(temp_dir.value_or(""), ".jsonl")};
      },
      py::arg("temp_dir"));
  m.def("dedup_file", &dedup_file, py::arg("source"), py::arg("output"), py::arg("k"), py::arg("keep"),
        py::arg("shingle"), py::arg("weighting"), py::arg("stopwords"), py::arg("index"), py::arg("memory"),
        py::arg("threads"), py::arg("temp_dir"), py::arg("input_format"), py::arg("id_field"),
        py::arg("text_field"), py::arg("progress"));
  m.def("dedup_texts", &dedup_texts, py::arg("texts"), py::arg("k"), py::arg("keep"), py::arg("shingle"),
        py::arg("weighting"), py::arg("stopwords"), py::arg("index"), py::arg("memory"), py::arg("threads"),
        py::arg("temp_dir"), py::arg("progress"));
}

}  // namespace simdex::python
