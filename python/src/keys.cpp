// simdex.key_id and simdex.KeyMap (spec/KEYS.md): the id simdex gives a document keyed by a string,
// and the key map, beside an index or fingerprints, that maps those ids back to their keys.
#include "simdex/keys.h"

#include <string>

#include "python/src/bindings.h"

namespace simdex::python {

py::object key_str(std::string_view key) { return decoded_str(key, "surrogateescape"); }

namespace {

// The bytes of a key given as bytes, or as str (UTF-8; surrogates as kSurrogateErrors says).
std::string key_bytes(py::handle key) { return utf8_bytes(key, "a key"); }

}  // namespace

void bind_keys(py::module_& m) {
  m.def(
      "key_id", [](py::handle key) { return key_id(key_bytes(key)); }, py::arg("key"),
      "The id simdex gives a document keyed by the string `key` (a URL, a path): XXH3-64 of its\n"
      "UTF-8 bytes (spec/KEYS.md), as `simdex build --text` and `dedup` give it. index.ids_of() and\n"
      "queries answer with such ids; KeyMap maps them back. Surrogates count as simdex reads a JSON\n"
      "line's \\u escapes: a pair is its code point, a lone one U+FFFD, except a surrogate escape\n"
      "(U+DC80..U+DCFF, as KeyMap gives a key that is not UTF-8), which is the byte it stands for.");
  py::class_<MappedKeyMap>(
      m, "KeyMap",
      "A key map (spec/KEYS.md): ids of string-keyed documents -> their keys. The CLI writes one beside\n"
      "an index or fingerprints whose documents have string keys: INDEX.keys.tsv, a set's SET.keys.tsv.\n"
      "Mapped, not read: opening is O(1) and a lookup reads a few lines, whatever the map's size (the\n"
      "pages stay in the page cache, shared by every process). len() counts the lines once; ids() reads\n"
      "the whole map; items() and iteration (over the ids, as a dict's) read it as they go.\n\n"
      "    keys = simdex.KeyMap(\"docs.sdx.keys.tsv\")\n"
      "    keys.get(hit_id)               # the key (str), or None for an id without one\n"
      "    keys.keys_of(matches.id)       # a list, one key or None an id\n"
      "    for id, key in keys.items(): ...  # every entry, ids ascending\n\n"
      "Raises InputError for a malformed map (naming the line's byte offset; a lookup checks the lines\n"
      "it reads, ids() and items() every line), FileError when unreadable.")
      .def(py::init([](const std::string& path) { return without_gil([&] { return MappedKeyMap(path); }); }),
           py::arg("path"))
      .def("__len__",
           [](Self<MappedKeyMap> self) {
             const MappedKeyMap& k = initialized(self);
             return without_gil([&] { return k.size(); });
           })
      .def("__contains__",
           [](Self<MappedKeyMap> self, Id id) {
             std::string scratch;
             return initialized(self).find(id.value, scratch).has_value();
           })
      .def("__getitem__",
           [](Self<MappedKeyMap> self, Id id) {
             std::string scratch;
             const auto key = initialized(self).find(id.value, scratch);
             if (!key) throw py::key_error(std::to_string(id.value));
             return key_str(*key);
           })
      .def(
          "get",
          [](Self<MappedKeyMap> self, Id id, py::object otherwise) {
            std::string scratch;
            const auto key = initialized(self).find(id.value, scratch);
            return key ? key_str(*key) : otherwise;
          },
          py::arg("id"), py::arg("default") = py::none(), "The key of `id`, or `default` when it has none.")
      .def(
          "keys_of",
          [](Self<MappedKeyMap> self, const U64Array& ids) {
            const MappedKeyMap& k = initialized(self);
            if (ids.ndim() != 1) throw Error(errc::usage, "ids must be a 1-D array");
            py::list out(ids.size());
            const std::uint64_t* p = ids.data();
            std::string scratch;
            for (py::ssize_t i = 0; i < ids.size(); ++i) {
              const auto key = k.find(p[i], scratch);
              out[static_cast<std::size_t>(i)] = key ? key_str(*key) : py::none();
            }
            return out;
          },
          py::arg("ids"),
          "The keys of `ids` (array-like of uint64), in order: a list of str, None where an id has none.")
      .def(
          "ids",
          [](Self<MappedKeyMap> self) {
            const MappedKeyMap& k = initialized(self);
            return to_numpy(without_gil([&] { return k.ids(); }));
          },
          "The ids that have a key, ascending (a uint64 array): reads the whole map, checking every line.")
      .def(
          "items", [](Self<MappedKeyMap> self) { return initialized(self).entries(); },
          "An iterator over the (id, key) pairs, ids ascending: reads the map as it goes, in constant\n"
          "memory whatever its size, checking every line it reads (InputError names a malformed one).");
  py::class_<MappedKeyMap::Entries>(m, "_KeyMapItems", "KeyMap.items(): (id, key) pairs, ids ascending.")
      .def("__iter__", [](py::object self) { return self; })
      .def("__next__", [](Self<MappedKeyMap::Entries> self) {
        std::uint64_t id = 0;
        std::string_view key;
        if (!initialized(self).next(id, key)) throw py::stop_iteration();
        return py::make_tuple(id, key_str(key));
      });
}

}  // namespace simdex::python
