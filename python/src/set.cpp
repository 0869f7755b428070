// simdex.add / remove / merge: simdex::SetWriter (spec/SET.md) fed numpy arrays, the GIL released
// while it writes. Reading a set is simdex.open's (Index::open tells a set by its magic).
#include "simdex/set.h"

#include <cerrno>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "python/src/bindings.h"
#include "simdex/error.h"

namespace simdex::python {

namespace {

const StructType& change_type() {
  static const StructType* type =
      new StructType("simdex.SetChange", "What simdex.add, remove and merge published.",
                     {{"generation", "the generation of the manifest published"},
                      {"written", "files written (names relative to the set's directory)"},
                      {"removed", "files removed after publication"},
                      {"bytes_written", "bytes of all files written, the manifest included"},
                      {"members", "member count after the change"},
                      {"merged_entries", "(fingerprint, id) pairs read by merges"},
                      {"merge_failure",
                       "add: why the merge after it failed (a RuntimeWarning said it), or None; the pairs "
                       "were added all the same"}});
  return *type;
}

py::object change_tuple(const SetChange& c) {
  return change_type().make(
      {py::int_(c.generation), py::cast(c.written), py::cast(c.removed), py::int_(c.bytes_written),
       py::int_(c.members), py::int_(c.merged_entries),
       c.merge_failure.empty() ? py::none() : py::object(message_str(c.merge_failure))});
}

SetWriterOptions writer_options(bool wait, bool merge_after_add, std::uint64_t memory, unsigned threads,
                                const std::optional<std::string>& temp_dir, py::handle progress) {
  SetWriterOptions o;
  o.wait_for_lock = wait;
  o.merge_after_add = merge_after_add;
  o.build.memory_bytes = memory;
  o.build.threads = threads;
  o.build.progress = SignalCheck(progress);  // Ctrl-C and the caller's progress
  if (temp_dir) o.build.temp_dir = *temp_dir;
  return o;
}

// remove and merge change a set that exists (SetWriter would take a lock beside a missing one).
void require_set(const std::string& path) {
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) throw Error(errc::io, "no index set at " + path, ENOENT);
}

py::object add(const std::string& path, const U64Array& fingerprints, const std::optional<U64Array>& ids,
               std::optional<unsigned> k, std::optional<std::uint32_t> block_bytes, bool merge, bool wait,
               std::uint64_t memory, unsigned threads, const std::optional<std::string>& temp_dir,
               const py::object& progress) {
  check_pairs(fingerprints, ids);
  const std::uint64_t* fp = fingerprints.data();
  const std::uint64_t* id = ids ? ids->data() : nullptr;
  const auto n = static_cast<std::size_t>(fingerprints.size());
  SetChange change;
  without_gil([&] {
    const SetWriterOptions options = writer_options(wait, merge, memory, threads, temp_dir, progress);
    SetWriter set(path, options);
    if (!id && set.exists())
      throw Error(errc::usage, "ids are needed to add to the existing set " + path +
                                   " (positions 0, 1, ... would repeat its ids)");
    BuildOptions b = options.build;
    b.k = k ? *k : set.exists() ? set.max_distance() : 3;
    b.block_bytes = block_bytes ? *block_bytes : set.exists() ? set.block_bytes() : b.block_bytes;
    IndexBuilder builder(b);
    for (std::size_t i = 0; i < n; ++i) builder.add(fp[i], id ? id[i] : i);
    change = set.add(builder);
  });
  if (!change.merge_failure.empty()) {
    // A warning, not an error, as the CLI's: the pairs are in, and a retry would add them twice.
    const py::object text =
        message_str(change.merge_failure + "; the next add merges, or simdex.merge(set_path)");
    // stacklevel 2: the line that called simdex.add, not the wrapper's.
    if (PyErr_WarnFormat(PyExc_RuntimeWarning, 2, "%U", text.ptr()) != 0) throw py::error_already_set();
  }
  return change_tuple(change);
}

py::object remove(const std::string& path, const U64Array& ids, bool wait) {
  check_pairs(ids, std::nullopt);
  const std::span<const std::uint64_t> removed(ids.data(), static_cast<std::size_t>(ids.size()));
  SetChange change;
  without_gil([&] {
    require_set(path);
    SetWriter set(path, writer_options(wait, false, 0, 0, std::nullopt, py::handle()));
    change = set.remove(removed);
  });
  return change_tuple(change);
}

py::object merge(const std::string& path, bool wait, std::uint64_t memory, unsigned threads,
                 const std::optional<std::string>& temp_dir, const py::object& progress) {
  SetChange change;
  without_gil([&] {
    require_set(path);
    SetWriter set(path, writer_options(wait, false, memory, threads, temp_dir, progress));
    change = set.merge();
  });
  return change_tuple(change);
}

}  // namespace

void bind_set(py::module_& m) {
  m.attr("SetChange") = change_type().type_object();
  m.def("set_add", &add, py::arg("path"), py::arg("fingerprints"), py::arg("ids"), py::arg("k"),
        py::arg("block_bytes"), py::arg("merge"), py::arg("wait"), py::arg("memory"), py::arg("threads"),
        py::arg("temp_dir"), py::arg("progress"));
  m.def("set_remove", &remove, py::arg("path"), py::arg("ids"), py::arg("wait"));
  m.def("set_merge", &merge, py::arg("path"), py::arg("wait"), py::arg("memory"), py::arg("threads"),
        py::arg("temp_dir"), py::arg("progress"));
}

}  // namespace simdex::python
