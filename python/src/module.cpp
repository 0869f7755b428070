// _simdex: the compiled half of the simdex Python package (python/simdex/__init__.py wraps it).
#include <string>

#include "python/src/bindings.h"
#include "simdex/error.h"
#include "simdex/version.h"

namespace simdex::python {

StructType::StructType(const char* name, const char* doc,
                       std::initializer_list<std::pair<const char*, const char*>> fields) {
  for (const auto& [field, field_doc] : fields)
    fields_.push_back({const_cast<char*>(field), const_cast<char*>(field_doc)});
  fields_.push_back({nullptr, nullptr});
  desc_ = {const_cast<char*>(name), const_cast<char*>(doc), fields_.data(), static_cast<int>(fields.size())};
  type_ = PyStructSequence_NewType(&desc_);
  if (!type_) throw py::error_already_set();
}

py::object StructType::make(std::initializer_list<py::object> items) const {
  PyObject* o = PyStructSequence_New(type_);
  if (!o) throw py::error_already_set();
  Py_ssize_t i = 0;
  for (const py::object& item : items) PyStructSequence_SetItem(o, i++, py::object(item).release().ptr());
  return py::reinterpret_steal<py::object>(o);
}

void check_pairs(const U64Array& fingerprints, const std::optional<U64Array>& ids) {
  if (fingerprints.ndim() != 1 || (ids && ids->ndim() != 1))
    throw Error(errc::usage, "fingerprints and ids must be 1-D arrays");
  if (ids && ids->size() != fingerprints.size())
    throw Error(errc::usage, "ids has " + std::to_string(ids->size()) + " values for " +
                                 std::to_string(fingerprints.size()) + " fingerprints");
}

void refuse_pickle(py::object cls) {
  cls.attr("__reduce__") = py::cpp_function(
      [](py::handle self) -> py::object {
        throw py::type_error("cannot pickle a " + std::string(Py_TYPE(self.ptr())->tp_name) +
                             " made directly: use the class of that name in the simdex module");
      },
      py::is_method(cls));
}

}  // namespace simdex::python

PYBIND11_MODULE(_simdex, m) {
  m.doc() = "The compiled part of simdex; import simdex instead.";
  m.attr("__version__") = SIMDEX_VERSION_STRING;
  simdex::python::watch_interpreter_exit();
  simdex::python::bind_errors(m);
  simdex::python::register_surrogate_errors();
  simdex::python::bind_fingerprint(m);
  simdex::python::bind_build(m);
  simdex::python::bind_index(m);
  simdex::python::bind_dedup(m);
  simdex::python::bind_set(m);
  simdex::python::bind_keys(m);
  for (const char* name : {"Index", "Builder", "KeyMap"}) simdex::python::refuse_pickle(m.attr(name));
}
