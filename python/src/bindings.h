// The pieces of the _simdex extension module (python/simdex/ is the package users import): each
// bind_* adds one part; the helpers turn C++ results into numpy arrays and structured tuples.
#pragma once
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <typeinfo>
#include <utility>
#include <vector>

#include "python/src/gil.h"
#include "simdex/error.h"
#include "simdex/fingerprint.h"

namespace simdex::python {

namespace py = pybind11;

// What the Python side (simdex/__init__.py, _u64) hands over: contiguous uint64 arrays, exactly.
using U64Array = py::array_t<std::uint64_t, py::array::c_style>;

// Throws ValueError unless `fingerprints` and `ids` (when given) are 1-D and of one length.
void check_pairs(const U64Array& fingerprints, const std::optional<U64Array>& ids);

// The fingerprint settings of simdex.fingerprint and simdex.dedup; throws Error(errc::usage) for a
// shingle size or weighting out of range. `stopwords`: str or bytes, as utf8_of reads them.
FingerprintOptions fingerprint_options(unsigned shingle, const std::string& weighting,
                                       const py::list& stopwords);

// The codec error handler (registered by register_surrogate_errors, at import) with which a str
// becomes the bytes simdex reads (python/src/utf8.cpp): a surrogate pair is its code point, a
// surrogate escape (U+DC80..U+DCFF) the byte it stands for, any other surrogate U+FFFD.
inline constexpr const char* kSurrogateErrors = "simdex.surrogates";
void register_surrogate_errors();

// The bytes of a str (UTF-8, surrogates as kSurrogateErrors says) or of a bytes object, valid while
// `owner` lives; nullopt for anything else. utf8_bytes: a copy, or TypeError "`what` is a str or
// bytes, not TYPE".
std::optional<std::string_view> utf8_of(py::handle item, py::object& owner);
std::string utf8_bytes(py::handle item, const std::string& what);
// utf8_of a text, the `position`-th: TypeError naming it for anything but a str or bytes.
std::string_view text_utf8(py::handle item, std::size_t position, py::object& owner);

// UTF-8 bytes as str, bytes that are not UTF-8 handled by the codec error handler `errors`.
py::object decoded_str(std::string_view bytes, const char* errors);
// A key as str: UTF-8, with bytes that are not (a directory's odd file names) as surrogate escapes.
py::object key_str(std::string_view key);
// A message as str (a path in it may not be UTF-8: U+FFFD there).
inline py::object message_str(std::string_view message) { return decoded_str(message, "replace"); }

void bind_errors(py::module_& m);
void bind_fingerprint(py::module_& m);
void bind_build(py::module_& m);
void bind_index(py::module_& m);
void bind_dedup(py::module_& m);
void bind_set(py::module_& m);
void bind_keys(py::module_& m);

// One fingerprint (or id) argument: an int (or numpy integer) in 0..2^64-1. A bool or a float is
// not one (TypeError, as for any other type), a number out of range is a UsageError saying so.
struct Fingerprint {
  std::uint64_t value = 0;
  static constexpr const char* kWhat = "a fingerprint";
};
struct Id {
  std::uint64_t value = 0;
  static constexpr const char* kWhat = "an id";
};

// `self` of a method of T, or an argument that must be a T: any instance of T's class (or of a
// subclass), whether or not its __init__ ran. Its signature shows T's Python name.
template <class T>
struct Self {
  py::handle handle;
};

// T's registered class, looked up once (a method call would otherwise look it up by typeid each time).
template <class T>
const py::detail::type_info& type_info_of() {
  static const py::detail::type_info* const info = py::detail::get_type_info(typeid(T), true);
  return *info;
}

template <class T>
py::detail::value_and_holder value_and_holder_of(Self<T> self) {
  return reinterpret_cast<py::detail::instance*>(self.handle.ptr())->get_value_and_holder(&type_info_of<T>());
}

// Whether the C++ object of `self` was constructed by its __init__.
template <class T>
bool constructed(Self<T> self) {
  return value_and_holder_of(self).holder_constructed();
}

// The C++ object of `self`. pybind11 2.10 hands a method called on an instance made by
// `cls.__new__(cls)` alone (its __init__ never ran) uninitialized memory as that object, and the
// method crashes; this raises TypeError instead.
template <class T>
T& initialized(Self<T> self) {
  const py::detail::value_and_holder v_h = value_and_holder_of(self);
  if (!v_h.holder_constructed())
    throw py::type_error(std::string(Py_TYPE(self.handle.ptr())->tp_name) +
                         " object is not initialized: its __init__ never ran");
  return *v_h.template value_ptr<T>();
}

// A member function of T bound as a method that checks its instance first (initialized).
template <class T, class R, class... A>
auto checked_method(R (T::*f)(A...) const) {
  return [f](Self<T> self, A... a) -> R { return (initialized(self).*f)(std::forward<A>(a)...); };
}
template <class T, class R, class... A>
auto checked_method(R (T::*f)(A...)) {
  return [f](Self<T> self, A... a) -> R { return (initialized(self).*f)(std::forward<A>(a)...); };
}

// Refuses to pickle instances of the raw class `cls` (the simdex.* wrapper of that name says how
// it pickles, or why not): without a __reduce__ of its own, pickle protocols 0 and 1 rebuild one
// through object.__new__, which aborts the interpreter inside pybind11.
void refuse_pickle(py::object cls);

// A 1-D array that owns `values` (moved, not copied).
template <class T>
py::array_t<T> to_numpy(std::vector<T>&& values) {
  auto* owned = new std::vector<T>(std::move(values));
  py::capsule owner(owned, [](void* p) { delete static_cast<std::vector<T>*>(p); });
  return py::array_t<T>(static_cast<py::ssize_t>(owned->size()), owned->data(), owner);
}

// A named tuple type implemented in C (PyStructSequence): cheap to create, prints its fields,
// unpacks and pickles like a tuple. `name` is "simdex.Name"; fields are {name, doc} pairs.
class StructType {
 public:
  StructType(const char* name, const char* doc,
             std::initializer_list<std::pair<const char*, const char*>> fields);
  // A new instance holding `items`, one per field.
  py::object make(std::initializer_list<py::object> items) const;
  PyTypeObject* type() const { return type_; }
  py::object type_object() const {
    return py::reinterpret_borrow<py::object>(reinterpret_cast<PyObject*>(type_));
  }

 private:
  std::vector<PyStructSequence_Field> fields_;
  PyStructSequence_Desc desc_{};
  PyTypeObject* type_ = nullptr;
};

// A bool, Python's or numpy's (np.bool_ still passes as an integer, with a DeprecationWarning): no
// fingerprint, id or count.
inline bool is_bool(PyObject* o) {
  if (PyBool_Check(o)) return true;
  const std::string_view name = Py_TYPE(o)->tp_name;
  return name == "numpy.bool_" || name == "numpy.bool";
}

}  // namespace simdex::python

namespace pybind11::detail {
template <class T>
struct u64_argument_caster {
  PYBIND11_TYPE_CASTER(T, const_name("int"));
  bool load(handle src, bool /*convert*/) {
    // Said here, not as pybind11's "incompatible function arguments" (no function takes another
    // type where these are asked for).
    auto not_an_int = [&] {
      return type_error(std::string(T::kWhat) + " is an int (or a numpy integer), not " +
                        Py_TYPE(src.ptr())->tp_name);
    };
    if (simdex::python::is_bool(src.ptr()) || !PyIndex_Check(src.ptr())) throw not_an_int();
    const object number = reinterpret_steal<object>(PyNumber_Index(src.ptr()));
    if (!number) {
      // An array (of one or many, or numpy's masked constant) has __index__ and refuses it in its
      // own words ("only integer scalar arrays can be converted to a scalar index"): said as above.
      if (!PyErr_ExceptionMatches(PyExc_TypeError)) throw error_already_set();
      PyErr_Clear();
      throw not_an_int();
    }
    const unsigned long long v = PyLong_AsUnsignedLongLong(number.ptr());
    if (v == ~0ULL && PyErr_Occurred()) {
      PyErr_Clear();
      throw simdex::Error(simdex::errc::usage, std::string(T::kWhat) + " is an integer in 0..2**64-1, not " +
                                                   std::string(repr(src)));
    }
    value.value = v;
    return true;
  }
};
template <>
struct type_caster<simdex::python::Fingerprint> : u64_argument_caster<simdex::python::Fingerprint> {};
template <>
struct type_caster<simdex::python::Id> : u64_argument_caster<simdex::python::Id> {};

// Self<T> loads any instance of T's class, constructed or not (pybind11's own caster would hand
// over uninitialized memory for the latter); anything else is not a match.
template <class T>
struct type_caster<simdex::python::Self<T>> {
  PYBIND11_TYPE_CASTER(simdex::python::Self<T>, make_caster<T>::name);
  bool load(handle src, bool /*convert*/) {
    if (!PyObject_TypeCheck(src.ptr(), simdex::python::type_info_of<T>().type)) return false;
    value.handle = src;
    return true;
  }
};
}  // namespace pybind11::detail
