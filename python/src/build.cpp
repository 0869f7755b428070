// simdex.Builder: IndexBuilder behind a lock (Python threads may share one), fed numpy arrays with
// the GIL released.
#include <atomic>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

#include "python/src/bindings.h"
#include "simdex/builder.h"
#include "simdex/error.h"

namespace simdex::python {

namespace {

const StructType& summary_type() {
  static const StructType* type =
      new StructType("simdex.BuildSummary", "What Builder.write() and simdex.build() wrote.",
                     {{"path", "the index file"},
                      {"fingerprint_count", "distinct fingerprints"},
                      {"id_count", "distinct (fingerprint, id) pairs"},
                      {"file_bytes", "size of the file"},
                      {"scheme_name", "the table scheme"},
                      {"table_count", "number of tables"},
                      {"temp_files", "temporary files of the external sort (0: sorted in memory)"}});
  return *type;
}

class Builder {
 public:
  Builder(unsigned k, const std::optional<std::string>& scheme, std::uint32_t block_bytes,
          std::uint64_t memory, unsigned threads, const std::optional<std::string>& temp_dir,
          const std::string& direct_io) {
    options_.k = k;
    options_.output_writes = output_writes_named(direct_io);
    if (scheme && *scheme != "auto") options_.scheme = Scheme::named(*scheme, k, 0);
    options_.block_bytes = block_bytes;
    options_.memory_bytes = memory;
    options_.threads = threads;
    if (temp_dir) options_.temp_dir = *temp_dir;
    // Ctrl-C and write()'s progress callback (progress_, set by each write)
    options_.progress = [this](std::string_view stage, std::uint64_t done, std::uint64_t total) {
      progress_(stage, done, total);
    };
    builder_.emplace(options_);
  }

  void add(const U64Array& fingerprints, const std::optional<U64Array>& ids) {
    refuse_from_own_write();
    check_pairs(fingerprints, ids);
    const std::uint64_t* fp = fingerprints.data();
    const std::uint64_t* id = ids ? ids->data() : nullptr;
    const auto n = static_cast<std::size_t>(fingerprints.size());
    without_gil([&] {
      std::lock_guard lock(mutex_);
      IndexBuilder& b = live();
      constexpr std::size_t kChunk = std::size_t{1} << 20;  // pairs between looks at Ctrl-C
      for (std::size_t at = 0; at < n; at += kChunk) {
        if (at > 0) try {
            progress_("add", at, n);  // KeyboardInterrupt: the pairs before `at` are in
          } catch (...) {
            next_id_ += at;
            interrupted_ = "an add() was interrupted after " + std::to_string(at) + " of its " +
                           std::to_string(n) + " pairs";
            throw;
          }
        const std::size_t end = std::min(n, at + kChunk);
        for (std::size_t i = at; i < end; ++i) b.add(fp[i], id ? id[i] : next_id_ + i);
      }
      next_id_ += n;
    });
  }

  // Frees the pairs and removes the sort's temporary files now (simdex.build's Builder, which a
  // traceback would otherwise keep alive with its files).
  void discard() {
    std::lock_guard lock(mutex_);
    builder_.reset();
    if (!written_) interrupted_ = "this Builder was discarded";
  }

  py::object write(const std::string& path, const py::object& progress) {
    refuse_from_own_write();
    BuildSummary s;
    without_gil([&] {
      std::lock_guard lock(mutex_);
      // This write's callback, under the lock (another thread's write waits), borrowed for the call.
      progress_ = SignalCheck(progress);
      writer_ = std::this_thread::get_id();
      struct Forget {
        Builder& b;
        ~Forget() {
          b.progress_ = SignalCheck();
          b.writer_ = std::thread::id();
        }
      } forget{*this};
      s = live().write(path);  // checks the path's directory before it uses up the pairs
      builder_.reset();        // one write per builder: its pairs are consumed
      written_ = true;
    });
    return summary_type().make({py::str(path), py::int_(s.fingerprint_count), py::int_(s.id_count),
                                py::int_(s.file_bytes), py::str(s.scheme_name), py::int_(s.table_count),
                                py::int_(s.temp_files)});
  }

  std::uint64_t pairs_added() const { return next_id_; }
  // True once write() succeeded; a write that failed after it consumed the pairs leaves the Builder
  // spent, not written.
  bool written() const { return written_; }
  bool spent() const { return !written_ && (!builder_ || builder_->used()); }
  const BuildOptions& options() const { return options_; }
  std::string stopped() const { return interrupted_; }

 private:
  IndexBuilder& live() {
    if (written_) throw Error(errc::usage, "this Builder has written its index already; make a new one");
    // An add() cut short holds part of its pairs: more adds or a write would go on from them, an add
    // again of the same array giving its first pairs twice (and new default ids).
    if (!interrupted_.empty())
      throw Error(errc::usage, interrupted_ +
                                   ": it holds part of the pairs added (pairs_added of them); make a "
                                   "new Builder and add them again");
    if (builder_->used())
      throw Error(errc::usage,
                  "this Builder's write() failed or was stopped after it used up the pairs; make a new "
                  "Builder and add them again");
    return *builder_;
  }
  // A progress callback of this Builder's write() calling add() or write() would wait for the lock
  // its own write holds, forever.
  void refuse_from_own_write() const {
    if (writer_.load() == std::this_thread::get_id())
      throw Error(errc::usage,
                  "this Builder is writing: its write()'s progress callback may not add() or write()");
  }

  BuildOptions options_;
  SignalCheck progress_;                   // of the write in progress (none between writes)
  std::atomic<std::thread::id> writer_{};  // the thread in write()
  std::optional<IndexBuilder> builder_;
  bool written_ = false;
  std::string interrupted_;    // why the Builder may not go on (an add() cut short); empty: it may
  std::uint64_t next_id_ = 0;  // pairs added so far: the default id of the next one
  std::mutex mutex_;
};

}  // namespace

void bind_build(py::module_& m) {
  m.attr("BuildSummary") = summary_type().type_object();
  py::class_<Builder>(m, "Builder")
      .def(py::init<unsigned, const std::optional<std::string>&, std::uint32_t, std::uint64_t, unsigned,
                    const std::optional<std::string>&, const std::string&>(),
           py::arg("k") = 3, py::arg("scheme") = py::none(),
           py::arg("block_bytes") = BuildOptions{}.block_bytes, py::arg("memory") = 0, py::arg("threads") = 0,
           py::arg("temp_dir") = py::none(), py::arg("direct_io") = "auto")
      // pybind11 ignores a second __init__; Builder.__init__ refuses one by this
      .def_property_readonly("_constructed", [](Self<Builder> self) { return constructed(self); })
      .def("_add", checked_method(&Builder::add), py::arg("fingerprints"), py::arg("ids") = py::none())
      .def("write", checked_method(&Builder::write), py::arg("path"), py::arg("progress") = py::none(),
           "Writes the index to `path` atomically (temporary file, fsync, rename) and returns a\n"
           "BuildSummary. On failure `path` is untouched. A Builder writes once.")
      .def("_discard", checked_method(&Builder::discard))
      .def_property_readonly("pairs_added", checked_method(&Builder::pairs_added))
      .def_property_readonly("written", checked_method(&Builder::written))
      .def_property_readonly("_spent", checked_method(&Builder::spent))
      .def_property_readonly("_stopped", checked_method(&Builder::stopped))
      .def_property_readonly("k", [](Self<Builder> self) { return initialized(self).options().k; })
      .def("__len__", checked_method(&Builder::pairs_added));
}

}  // namespace simdex::python
