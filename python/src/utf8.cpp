// The bytes simdex reads of a Python str: UTF-8, with surrogates (which UTF-8 cannot hold) as simdex
// reads a JSON line's \u escapes, so that a text or key has the fingerprint or id simdex gives the
// line json.dumps wrote of it. One rule for texts, stopwords and keys.
#include <optional>
#include <string>

#include "python/src/bindings.h"

namespace simdex::python {

namespace {

// The codec error handler kSurrogateErrors: a high and a low surrogate are the code point they pair
// to; a surrogate escape (U+DC80..U+DCFF, which key_str and errors="surrogateescape" make of bytes
// that are not UTF-8) is that byte (as surrogateescape); any other one is U+FFFD (spec/KEYS.md).
py::tuple encode_surrogates(const py::object& error) {
  const py::object text = error.attr("object");
  const auto start = error.attr("start").cast<Py_ssize_t>(), end = error.attr("end").cast<Py_ssize_t>();
  std::string bytes;
  for (Py_ssize_t i = start; i < end; ++i) {
    const Py_UCS4 c = PyUnicode_ReadChar(text.ptr(), i);
    const Py_UCS4 next = i + 1 < end ? PyUnicode_ReadChar(text.ptr(), i + 1) : 0;
    if (c >= 0xD800 && c <= 0xDBFF && next >= 0xDC00 && next <= 0xDFFF) {
      // The code point's UTF-8, by Python's own encoder.
      const py::str code_point = py::reinterpret_steal<py::str>(
          PyUnicode_FromOrdinal(static_cast<int>(0x10000 + ((c - 0xD800) << 10) + (next - 0xDC00))));
      Py_ssize_t size = 0;
      const char* utf8 = code_point ? PyUnicode_AsUTF8AndSize(code_point.ptr(), &size) : nullptr;
      if (!utf8) throw py::error_already_set();
      bytes.append(utf8, static_cast<std::size_t>(size));
      ++i;
    } else if (c >= 0xDC80 && c <= 0xDCFF) {
      bytes.push_back(static_cast<char>(c - 0xDC00));
    } else {
      bytes += "\xEF\xBF\xBD";
    }
  }
  return py::make_tuple(py::bytes(bytes), end);
}

}  // namespace

void register_surrogate_errors() {
  const py::cpp_function handler(&encode_surrogates);  // the codec registry holds it
  if (PyCodec_RegisterError(kSurrogateErrors, handler.ptr()) != 0) throw py::error_already_set();
}

std::optional<std::string_view> utf8_of(py::handle item, py::object& owner) {
  if (PyUnicode_Check(item.ptr())) {
    Py_ssize_t size = 0;
    if (const char* p = PyUnicode_AsUTF8AndSize(item.ptr(), &size)) {  // cached in the str: no copy
      owner = py::reinterpret_borrow<py::object>(item);
      return std::string_view(p, static_cast<std::size_t>(size));
    }
    PyErr_Clear();  // surrogates
    owner =
        py::reinterpret_steal<py::object>(PyUnicode_AsEncodedString(item.ptr(), "utf-8", kSurrogateErrors));
    if (!owner) throw py::error_already_set();
  } else if (PyBytes_Check(item.ptr())) {
    owner = py::reinterpret_borrow<py::object>(item);
  } else {
    return std::nullopt;
  }
  return std::string_view(PyBytes_AS_STRING(owner.ptr()),
                          static_cast<std::size_t>(PyBytes_GET_SIZE(owner.ptr())));
}

std::string_view text_utf8(py::handle item, std::size_t position, py::object& owner) {
  if (const auto bytes = utf8_of(item, owner)) return *bytes;
  throw py::type_error("texts must hold str (or UTF-8 bytes); item " + std::to_string(position) + " is " +
                       Py_TYPE(item.ptr())->tp_name);
}

std::string utf8_bytes(py::handle item, const std::string& what) {
  py::object owner;
  if (const auto bytes = utf8_of(item, owner)) return std::string(*bytes);
  throw py::type_error(what + " is a str or bytes, not " + Py_TYPE(item.ptr())->tp_name);
}

py::object decoded_str(std::string_view bytes, const char* errors) {
  PyObject* s = PyUnicode_DecodeUTF8(bytes.data(), static_cast<Py_ssize_t>(bytes.size()), errors);
  if (!s) throw py::error_already_set();
  return py::reinterpret_steal<py::object>(s);
}

}  // namespace simdex::python
