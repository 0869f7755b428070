// simdex.key_id and simdex.KeyMap (spec/KEYS.md): the id simdex gives a document keyed by a string,
// and the key map, beside an index or fingerprints, that maps those ids back to their keys.
#include "simdex/keys.h"

#include <string>

#include "python/src/bindings.h"

namespace simdex::python {

py::object key_str(std::string_view key) {
  PyObject* s = PyUnicode_DecodeUTF8(key.data(), static_cast<Py_ssize_t>(key.size()), "surrogateescape");
  if (!s) throw py::error_already_set();
  return py::reinterpret_steal<py::object>(s);
}

namespace {

// The bytes of a key given as bytes, or as str (UTF-8; surrogate escapes back to the bytes they
// stand for, the inverse of key_str).
std::string key_bytes(py::handle key) {
  if (PyBytes_Check(key.ptr())) return std::string(py::reinterpret_borrow<py::bytes>(key));
  if (!PyUnicode_Check(key.ptr()))
    throw py::type_error("a key is a str or bytes, not " + std::string(Py_TYPE(key.ptr())->tp_name));
  PyObject* encoded = PyUnicode_AsEncodedString(key.ptr(), "utf-8", "surrogateescape");
  if (!encoded) throw py::error_already_set();
  return std::string(py::reinterpret_steal<py::bytes>(encoded));
}

}  // namespace

void bind_keys(py::module_& m) {
  m.def(
      "key_id", [](py::handle key) { return key_id(key_bytes(key)); }, py::arg("key"),
      "The id simdex gives a document keyed by the string `key` (a URL, a path): XXH3-64 of its\n"
      "UTF-8 bytes (spec/KEYS.md), as `simdex build --text` and `dedup` give it. index.ids_of() and\n"
      "queries answer with such ids; KeyMap maps them back.");
  py::class_<KeyMap>(m, "KeyMap",
                     "A key map (spec/KEYS.md): ids of string-keyed documents -> their keys, read whole\n"
                     "(its bytes and 16 bytes an entry). The CLI writes one beside an index or fingerprints\n"
                     "whose documents have string keys: INDEX.keys.tsv, a set's SET.keys.tsv.\n\n"
                     "    keys = simdex.KeyMap(\"docs.sdx.keys.tsv\")\n"
                     "    keys.get(hit_id)               # the key (str), or None for an id without one\n"
                     "    keys.keys_of(matches.id)       # a list, one key or None an id\n\n"
                     "Raises InputError (naming the line) for a malformed map, FileError when unreadable.")
      .def(py::init([](const std::string& path) { return without_gil([&] { return KeyMap::read(path); }); }),
           py::arg("path"))
      .def("__len__", &KeyMap::size)
      .def("__contains__", [](const KeyMap& k, std::uint64_t id) { return k.find(id).has_value(); })
      .def("__getitem__",
           [](const KeyMap& k, std::uint64_t id) {
             const auto key = k.find(id);
             if (!key) throw py::key_error(std::to_string(id));
             return key_str(*key);
           })
      .def(
          "get",
          [](const KeyMap& k, std::uint64_t id, py::object otherwise) {
            const auto key = k.find(id);
            return key ? key_str(*key) : otherwise;
          },
          py::arg("id"), py::arg("default") = py::none(), "The key of `id`, or `default` when it has none.")
      .def(
          "keys_of",
          [](const KeyMap& k, const U64Array& ids) {
            if (ids.ndim() != 1) throw Error(errc::usage, "ids must be a 1-D array");
            py::list out(ids.size());
            const std::uint64_t* p = ids.data();
            for (py::ssize_t i = 0; i < ids.size(); ++i) {
              const auto key = k.find(p[i]);
              out[static_cast<std::size_t>(i)] = key ? key_str(*key) : py::none();
            }
            return out;
          },
          py::arg("ids"),
          "The keys of `ids` (array-like of uint64), in order: a list of str, None where an id has none.")
      .def(
          "ids",
          [](const KeyMap& k) {
            std::vector<std::uint64_t> ids(k.size());
            for (std::size_t i = 0; i < ids.size(); ++i) ids[i] = k.id_at(i);
            return to_numpy(std::move(ids));
          },
          "The ids that have a key, ascending (a uint64 array).");
}

}  // namespace simdex::python
