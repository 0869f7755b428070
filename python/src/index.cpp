// simdex.Index: an open index file. The Index is held by a shared_ptr that every call copies while
// it holds the GIL, so close() from one thread never unmaps the file under a call in another: the
// mapping goes when the last call using it returns.
#include "simdex/index.h"

#include <sys/resource.h>

#include <algorithm>
#include <memory>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "format/huge_pages.h"
#include "format/physical_memory.h"
#include "python/src/bindings.h"
#include "set/set_files.h"
#include "simdex/batch.h"
#include "simdex/error.h"

namespace simdex::python {

namespace {

const StructType& hit_type() {
  static const StructType* type =
      new StructType("simdex.Hit", "A stored fingerprint within k bits of the query, with its ids.",
                     {{"fingerprint", "the stored fingerprint (int)"},
                      {"distance", "Hamming distance to the query (int)"},
                      {"ids", "the ids stored with it (tuple of int, ascending)"}});
  return *type;
}

const StructType& problem_type() {
  static const StructType* type = new StructType(
      "simdex.Problem", "A rule of spec/FORMAT.md a file breaks (or one verify() could not decide).",
      {{"code", "the rule's name, as simdex.Error.code"},
       {"where", "the place in the file"},
       {"what", "what is wrong"}});
  return *type;
}

const StructType& report_type() {
  static const StructType* type =
      new StructType("simdex.VerifyReport", "What Index.verify() found: ok is True when every rule holds.",
                     {{"ok", "no problem found"},
                      {"problems", "list of Problem (at most 100)"},
                      {"unchecked", "list of Problem: rules left undecided (not failures)"},
                      {"blocks_checked", "blocks decoded"},
                      {"bytes_checked", "bytes read"}});
  return *type;
}

// `progress`: the caller's callable (or None), called with the stage (the job's name, after an index
// set's "merging members: ..." stages).
BatchOptions batch_options(std::optional<int> k, unsigned threads, bool force, py::handle progress) {
  if (k && *k < 0) throw Error(errc::usage, "k must be >= 0 (or None for the index's k)");
  BatchOptions o;
  o.k = k.value_or(-1);
  o.threads = threads;
  if (force) o.work_limit = UINT64_MAX;
  o.progress = SignalCheck(progress);  // Ctrl-C and the caller's progress
  return o;
}

// The rows a call that returns whole arrays (join, pairs) may gather: half the memory the process
// may have (the machine's, or less under an address-space limit, ulimit -v), at `row_bytes` a row
// at its peak. Past them the call stops with Error(work_limit) instead of being killed for memory
// (N equal queries of a fingerprint stored with N ids make N² rows); force=True lifts the bound.
class RowBound {
 public:
  // `job`: the method's name ("join"), as Index.join and as `simdex join` names it.
  RowBound(bool force, std::size_t row_bytes, const char* job) : job_(job), row_bytes_(row_bytes) {
    if (force) return;
    std::uint64_t memory = format::physical_memory_bytes();
    rlimit as{};
    if (::getrlimit(RLIMIT_AS, &as) == 0 && as.rlim_cur != RLIM_INFINITY &&
        (memory == 0 || as.rlim_cur < memory))
      memory = as.rlim_cur;
    if (memory > 0) limit_ = memory / 2 / row_bytes;
  }
  void add() {
    if (++rows_ > limit_) fail();
  }

 private:
  [[noreturn]] void fail() const {
    throw Error(errc::work_limit,
                std::string("Index.") + job_ + "'s result passed " + std::to_string(limit_) + " rows (" +
                    std::to_string(limit_ * row_bytes_ >> 20) +
                    " MiB, half the memory this process may have) and would not fit: give fewer queries "
                    "at a time or a smaller k, or force=True to go on (the CLI's `simdex " +
                    job_ + "` writes its results as it finds them)");
  }
  const char* job_;
  std::size_t row_bytes_;
  std::uint64_t limit_ = UINT64_MAX, rows_ = 0;
};

template <class Ids>
py::tuple ids_tuple(const Ids& ids) {
  py::tuple t(ids.size());
  std::size_t i = 0;
  for (std::uint64_t id : ids) PyTuple_SET_ITEM(t.ptr(), i++, PyLong_FromUnsignedLongLong(id));
  return t;
}

class PyIndex {
 public:
  PyIndex(std::string path, bool detect_changes, const std::optional<std::string>& preload)
      : path_(std::move(path)), absolute_path_(set::reopen_path(path_)), detect_changes_(detect_changes) {
    OpenOptions o;
    o.detect_changes = detect_changes;
    if (!preload || *preload == "none")
      o.preload = OpenOptions::Preload::none;
    else if (*preload == "keys")
      o.preload = OpenOptions::Preload::keys;
    else if (*preload == "all")
      o.preload = OpenOptions::Preload::all;
    else
      throw Error(errc::usage, "preload must be None, 'keys' or 'all'");
    index_ = without_gil([&] { return std::make_shared<const Index>(Index::open(path_, o)); });
  }

  // The index `snapshot` opens now (Index::reopen): a set's newest manifest, or the file now at the
  // path.
  explicit PyIndex(const PyIndex& snapshot, bool /*reopen*/)
      : path_(snapshot.path_),
        absolute_path_(snapshot.absolute_path_),
        detect_changes_(snapshot.detect_changes_) {
    const auto index = snapshot.get();
    index_ = without_gil([&] { return std::make_shared<const Index>(index->reopen()); });
  }

  // The open index, for one call (see the file's comment). Needs the GIL.
  std::shared_ptr<const Index> get() const {
    if (!index_) throw Error(errc::usage, "the index " + path_ + " is closed");
    return index_;
  }

  void close() { index_.reset(); }
  bool closed() const { return !index_; }
  const std::string& path() const { return path_; }
  // The path made absolute when the index was opened: a pickle names the same file after a chdir.
  const std::string& absolute_path() const { return absolute_path_; }
  bool detect_changes() const { return detect_changes_; }

  // k: None, or an int (numpy's too) in 0..2^31-1; a bool or a float is refused as simdex's other
  // counts are (python/simdex/__init__.py's _count), here so that a query pays no Python frame.
  py::list query(Fingerprint fingerprint, const py::object& k_arg) const {
    std::optional<int> k;
    if (!k_arg.is_none()) {
      long long v = -1;
      if (!is_bool(k_arg.ptr()) && !PyFloat_Check(k_arg.ptr()))
        if (PyObject* n = PyNumber_Index(k_arg.ptr())) {
          int overflow = 0;
          v = PyLong_AsLongLongAndOverflow(n, &overflow);
          Py_DECREF(n);
          if (overflow) v = -1;
        }
      PyErr_Clear();
      if (v < 0 || v > INT32_MAX)
        throw Error(errc::usage,
                    "k must be an integer in 0..2147483647, not " + py::repr(k_arg).cast<std::string>());
      k = static_cast<int>(v);
    }
    const auto index = get();
    // A buffer reused by the thread's queries, so a query allocates only what it returns. Taken,
    // not borrowed: building the hits may run Python code (a finalizer) that queries again.
    thread_local std::vector<Hit> spare;
    std::vector<Hit> hits = std::move(spare);
    without_gil([&] { index->query(fingerprint.value, index->search_distance(k.value_or(-1)), hits); });
    py::list out(hits.size());
    for (std::size_t i = 0; i < hits.size(); ++i)
      PyList_SET_ITEM(
          out.ptr(), i,
          hit_type()
              .make({py::int_(hits[i].fingerprint), py::int_(hits[i].distance), ids_tuple(hits[i].ids)})
              .release()
              .ptr());
    index->check_unchanged();  // the ids were read from the mapping: still the file opened?
    spare = std::move(hits);
    return out;
  }

  py::array_t<std::uint64_t> ids_of(Fingerprint fingerprint) const {
    const auto index = get();
    std::vector<std::uint64_t> ids;
    for (std::uint64_t id : index->ids_of(fingerprint.value)) ids.push_back(id);
    index->check_unchanged();
    return to_numpy(std::move(ids));
  }

  // Rows (query, query_id, fingerprint, distance, id), one per id of each hit, sorted.
  py::tuple join(const U64Array& fingerprints, const std::optional<U64Array>& ids, std::optional<int> k,
                 unsigned threads, bool force, const py::object& progress) const {
    check_pairs(fingerprints, ids);
    const auto index = get();
    BatchOptions o = batch_options(k, threads, force, progress);
    o.with_ids = true;
    struct Row {
      std::uint64_t query, fingerprint, id;
      unsigned distance;
    };
    const auto n = static_cast<std::size_t>(fingerprints.size());
    std::vector<Query> queries(n);
    // Rows come in any order (threads). They are kept in chunks (no copy as they grow) and counted
    // per query; then placed by query into one array (a counting sort), each query's few rows
    // sorted by (distance, fingerprint, id), and written out in order. (Placed straight into the
    // five output arrays, each row was five writes to random places and a random read of its
    // query's id: 57-69 ms after a 2-thread join of 1M rows, against 20-25 ms this way.)
    std::vector<std::vector<Row>> chunks;
    std::vector<std::size_t> start(n + 1, 0);
    format::HugeBuffer<Row> rows;
    // A row at its peak: in its chunk and in `rows`, then in `rows` and the five arrays.
    RowBound bound(force, 2 * sizeof(Row) + 36, "join");
    without_gil([&] {
      for (std::size_t i = 0; i < n; ++i) queries[i] = {fingerprints.data()[i], ids ? ids->data()[i] : i};
      std::size_t total = 0;
      simdex::join(*index, queries, o, [&](std::span<const JoinHit> hits) {
        for (const JoinHit& h : hits)
          for (std::uint64_t id : h.ids) {
            if (chunks.empty() || chunks.back().size() == chunks.back().capacity())
              chunks.emplace_back().reserve(std::size_t{1} << 16);
            bound.add();
            chunks.back().push_back({h.query, h.fingerprint, id, h.distance});
            ++start[h.query + 1];
            ++total;
          }
      });
      for (std::size_t q = 0; q < n; ++q) start[q + 1] += start[q];
      rows.resize(total);
      for (auto& chunk : chunks) {
        for (const Row& r : chunk) rows[start[r.query]++] = r;  // start[q] ends as start[q + 1] was
        std::vector<Row>().swap(chunk);
      }
      for (std::size_t q = n; q > 0; --q) start[q] = start[q - 1];  // back to where each query starts
      start[0] = 0;
      for (std::size_t q = 0; q < n; ++q)
        if (start[q + 1] - start[q] > 1)
          std::sort(rows.begin() + start[q], rows.begin() + start[q + 1], [](const Row& a, const Row& b) {
            return std::tie(a.distance, a.fingerprint, a.id) < std::tie(b.distance, b.fingerprint, b.id);
          });
    });
    const auto size = static_cast<py::ssize_t>(rows.size());
    py::array_t<std::int64_t> query(size);
    py::array_t<std::uint64_t> query_id(size), fingerprint(size), id(size);
    py::array_t<std::int32_t> distance(size);
    without_gil([&] {
      std::int64_t* out_query = query.mutable_data();
      std::uint64_t *out_query_id = query_id.mutable_data(), *out_fingerprint = fingerprint.mutable_data(),
                    *out_id = id.mutable_data();
      std::int32_t* out_distance = distance.mutable_data();
      for (std::size_t at = 0; at < rows.size(); ++at) {
        const Row& r = rows[at];
        out_query[at] = static_cast<std::int64_t>(r.query);
        out_query_id[at] = queries[r.query].id;
        out_fingerprint[at] = r.fingerprint;
        out_distance[at] = static_cast<std::int32_t>(r.distance);
        out_id[at] = r.id;
      }
    });
    return py::make_tuple(query, query_id, fingerprint, distance, id);
  }

  // (a, b, distance) of every pair of distinct stored fingerprints within k, sorted by (a, b).
  py::tuple pairs(std::optional<int> k, unsigned threads, bool force, const py::object& progress) const {
    const auto index = get();
    const BatchOptions o = batch_options(k, threads, force, progress);
    std::vector<std::tuple<std::uint64_t, std::uint64_t, unsigned>> all;
    // A row at its peak: in `all` as it doubles, or in `all` and the three arrays.
    RowBound bound(force, 2 * sizeof(all[0]) + 20, "pairs");
    without_gil([&] {
      find_pairs(*index, o, [&](std::span<const NearPair> batch) {
        for (const NearPair& p : batch) {
          bound.add();
          all.emplace_back(p.a, p.b, p.distance);
        }
      });
      std::sort(all.begin(), all.end());
    });
    std::vector<std::uint64_t> a(all.size()), b(all.size());
    std::vector<std::int32_t> distance(all.size());
    for (std::size_t i = 0; i < all.size(); ++i) std::tie(a[i], b[i], distance[i]) = all[i];
    return py::make_tuple(to_numpy(std::move(a)), to_numpy(std::move(b)), to_numpy(std::move(distance)));
  }

  // One (fingerprints, ids) pair of arrays per cluster, in the library's order.
  py::list clusters(std::optional<int> k, std::size_t min_size, bool size_in_ids, unsigned threads,
                    bool force, const py::object& progress) const {
    const auto index = get();
    const BatchOptions o = batch_options(k, threads, force, progress);
    ClusterOptions c;
    c.min_size = min_size;
    c.size_in_ids = size_in_ids;
    std::vector<std::vector<std::uint64_t>> fingerprints, ids;
    without_gil([&] {
      find_clusters(*index, o, c, [&](std::span<const ClusterMember> members) {
        auto& f = fingerprints.emplace_back();
        auto& i = ids.emplace_back();
        for (const ClusterMember& m : members) {
          f.push_back(m.fingerprint);
          for (std::uint64_t id : m.ids) i.push_back(id);
        }
      });
    });
    py::list out(fingerprints.size());
    for (std::size_t n = 0; n < fingerprints.size(); ++n)
      PyList_SET_ITEM(
          out.ptr(), n,
          py::make_tuple(to_numpy(std::move(fingerprints[n])), to_numpy(std::move(ids[n]))).release().ptr());
    return out;
  }

  py::dict info() const {
    const auto index = get();
    const IndexInfo i = index->info();
    std::uint64_t table_bytes = 0;
    py::list tables;
    for (const TableInfo& t : i.tables) {
      table_bytes += t.bytes;
      py::dict d;
      d["prefix_bits"] = t.prefix_bits;
      d["blocks"] = t.block_count;
      d["bytes"] = t.bytes;
      d["bits_per_entry"] = t.bits_per_entry;
      d["directory_bits"] = t.directory_bits;
      tables.append(d);
    }
    const double n = static_cast<double>(i.fingerprint_count);
    py::dict d;  // the names of `simdex info --json` (the spec's, FORMAT.md §3)
    d["format"] = std::to_string(i.version_major) + "." + std::to_string(i.version_minor);
    d["scheme_name"] = i.scheme_name;
    d["max_distance"] = i.max_distance;
    d["fingerprint_count"] = i.fingerprint_count;
    d["id_count"] = i.id_count;
    d["block_bytes"] = i.block_bytes;
    d["file_bytes"] = i.file_bytes;
    d[i.is_set ? "manifest_checksum" : "header_checksum"] = i.checksum;
    d["ids_bytes"] = i.ids_bytes;
    d["floor_bits_per_entry"] = i.floor_bits_per_entry;
    d["mean_bits_per_entry"] = i.tables.empty() || n == 0 ? 0.0
                                                          : static_cast<double>(table_bytes) * 8 / n /
                                                                static_cast<double>(i.tables.size());
    d["tables"] = tables;
    py::list tagged;  // spec/FORMAT.md §5.1, as `simdex info --json` lists them
    for (const IndexInfo::TaggedSection& t : i.tagged_sections) {
      py::dict td;
      td["tag"] = t.tag;
      td["name"] = t.name;
      td["critical"] = t.critical;
      td["bytes"] = t.bytes;
      tagged.append(td);
    }
    d["tagged_sections"] = tagged;
    // How the fingerprints were made from text (spec/FORMAT.md §5.2), None when not recorded.
    if (i.fingerprint_settings) {
      const FingerprintSettings& s = *i.fingerprint_settings;
      py::dict sd;
      sd["fingerprint_version"] = s.fingerprint_version;
      sd["shingle_size"] = s.shingle_size;
      sd["weighting"] = s.weighting == Weighting::binary ? "binary" : "frequency";
      sd["stopwords"] = s.stopwords;
      d["fingerprint_settings"] = sd;
    } else {
      d["fingerprint_settings"] = py::none();
    }
    if (i.fingerprint_settings_differ) d["fingerprint_settings_differ"] = true;
    if (i.is_set) {  // spec/SET.md's names, as `simdex info --json` prints them
      d["generation"] = i.generation;
      d["tombstone_count"] = i.tombstone_count;
      d["removed_ids"] = i.removed_ids;
      py::list members;
      for (const IndexInfo::Member& m : i.members) {
        py::dict md;
        md["name"] = m.name;
        md["generation"] = m.generation;
        md["fingerprint_count"] = m.fingerprint_count;
        md["id_count"] = m.id_count;
        md["file_bytes"] = m.file_bytes;
        members.append(md);
      }
      d["members"] = members;
    }
    return d;
  }

  py::object verify() const {
    const auto index = get();
    VerifyReport r;
    without_gil([&] { r = index->verify(); });
    auto problems = [](const std::vector<Problem>& list) {
      py::list out;
      for (const Problem& p : list)
        out.append(problem_type().make(
            {py::str(std::string(errc_name(p.code))), py::str(p.where), py::str(p.what)}));
      return out;
    };
    return report_type().make({py::bool_(r.ok()), problems(r.problems), problems(r.unchecked),
                               py::int_(r.blocks_checked), py::int_(r.bytes_checked)});
  }

  std::string repr() const {
    if (!index_) return "<simdex.Index " + std::string(py::repr(py::str(path_))) + " (closed)>";
    return "<simdex.Index " + std::string(py::repr(py::str(path_))) + ": " +
           std::to_string(index_->fingerprint_count()) +
           " fingerprints, k=" + std::to_string(index_->max_distance()) + ", " +
           std::to_string(index_->table_count()) + " tables>";
  }

 private:
  std::string path_, absolute_path_;
  bool detect_changes_;
  std::shared_ptr<const Index> index_;
};

}  // namespace

void bind_index(py::module_& m) {
  m.attr("Hit") = hit_type().type_object();
  m.attr("Problem") = problem_type().type_object();
  m.attr("VerifyReport") = report_type().type_object();
  py::class_<PyIndex>(m, "Index")
      .def(py::init<std::string, bool, std::optional<std::string>>(), py::arg("path"),
           py::arg("detect_changes") = true, py::arg("preload") = py::none())
      .def(py::init([](Self<PyIndex> snapshot) { return PyIndex(initialized(snapshot), true); }),
           py::arg("reopen"))
      // pybind11 ignores a second __init__; Index.__init__ refuses one by this
      .def_property_readonly("_constructed", [](Self<PyIndex> self) { return constructed(self); })
      .def_property_readonly("is_set", [](Self<PyIndex> self) { return initialized(self).get()->is_set(); })
      .def("query", checked_method(&PyIndex::query), py::arg("fingerprint"), py::arg("k") = py::none(),
           "Every stored fingerprint within k bits of `fingerprint` (k=None: the index's k), each once,\n"
           "as a list of Hit(fingerprint, distance, ids) sorted by (distance, fingerprint).\n"
           "Raises UsageError when k exceeds the index's k.")
      .def("_ids_of", checked_method(&PyIndex::ids_of), py::arg("fingerprint"))
      .def("_join", checked_method(&PyIndex::join), py::arg("fingerprints"), py::arg("ids"), py::arg("k"),
           py::arg("threads"), py::arg("force"), py::arg("progress"))
      .def("_pairs", checked_method(&PyIndex::pairs), py::arg("k"), py::arg("threads"), py::arg("force"),
           py::arg("progress"))
      .def("_clusters", checked_method(&PyIndex::clusters), py::arg("k"), py::arg("min_size"),
           py::arg("size_in_ids"), py::arg("threads"), py::arg("force"), py::arg("progress"))
      .def_property_readonly("info", checked_method(&PyIndex::info),
                             "The file's format, scheme, counts, sizes and tables: a dict with the names\n"
                             "`simdex info --json` prints (spec/FORMAT.md section 3); fingerprint_settings:\n"
                             "how an index built from texts made its fingerprints (section 5.2), else None.")
      .def("verify", checked_method(&PyIndex::verify),
           "Reads every byte and checks every rule of spec/FORMAT.md (checksums, order, coverage):\n"
           "a VerifyReport whose .ok is True when all hold; .problems name the rules broken.")
      .def("close", checked_method(&PyIndex::close),
           "Closes the index; the file is unmapped once calls in flight in other threads return.")
      .def_property_readonly("closed", checked_method(&PyIndex::closed))
      .def_property_readonly("path", checked_method(&PyIndex::path))
      .def_property_readonly("_absolute_path", checked_method(&PyIndex::absolute_path))
      .def_property_readonly("detect_changes", checked_method(&PyIndex::detect_changes))
      .def_property_readonly("fingerprint_count",
                             [](Self<PyIndex> self) { return initialized(self).get()->fingerprint_count(); })
      .def_property_readonly("k", [](Self<PyIndex> self) { return initialized(self).get()->max_distance(); })
      .def_property_readonly(
          "checksum", [](Self<PyIndex> self) { return initialized(self).get()->checksum(); },
          "What identifies the index open: a file's header_checksum (a hash of all its bytes, through\n"
          "its sections' checksums), a set's manifest_checksum. A pickled Index checks it when reopened.")
      .def("__len__", [](Self<PyIndex> self) { return initialized(self).get()->fingerprint_count(); })
      .def("__repr__", [](Self<PyIndex> self) {
        return constructed(self) ? initialized(self).repr() : std::string("<simdex.Index (not initialized)>");
      });
}

}  // namespace simdex::python
