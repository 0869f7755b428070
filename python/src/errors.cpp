// simdex::Error -> the Python exception simdex._errors chooses for its code (simdex.Error and its
// subclasses, defined in Python so they can also derive from ValueError and OSError). str(e) is the
// message without the code's name that the CLI prints before it ("io: "): that is e.code, and the
// class says it, as for the errors raised in Python.
#include <string>

#include "python/src/bindings.h"
#include "simdex/error.h"

namespace simdex::python {

void bind_errors(py::module_& m) {
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const Error& e) {
      const std::string code(errc_name(e.code()));
      try {
        py::object exc =
            py::module_::import("simdex._errors").attr("make_error")(e.detail(), code, e.os_error());
        PyErr_SetObject(reinterpret_cast<PyObject*>(Py_TYPE(exc.ptr())), exc.ptr());
      } catch (py::error_already_set& failed) {
        failed.restore();  // the package is broken: say why rather than lose the error
      }
    }
  });
  py::list names;
  for (int c = 0; c <= static_cast<int>(kLastErrc); ++c)
    names.append(std::string(errc_name(static_cast<errc>(c))));
  m.attr("error_codes") = names;
}

}  // namespace simdex::python
