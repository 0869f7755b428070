// The GIL released while simdex works, and taken back safely when the interpreter exits. Python
// 3.11-3.13 end a daemon thread that takes the GIL back during finalization by pthread_exit, which
// unwinds its stack: through py::gil_scoped_release's destructor (which may not throw) that
// aborted the whole process ("terminate called without an active exception"), and frames above it
// would release Python objects without the GIL while the main thread tears the interpreter down.
// So the GIL is taken back outside any destructor, and a daemon thread that would be ended waits
// for the process to end instead (as Python 3.14 makes such threads do).
#pragma once
#include <cxxabi.h>
#include <pybind11/pybind11.h>

#include <chrono>
#include <cstdint>
#include <exception>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>

namespace simdex::python {

namespace py = pybind11;

// When the module loads: an atexit hook that, before the interpreter finalizes, stops daemon
// threads from taking the GIL back and lets those already on their way get it first.
void watch_interpreter_exit();

// Takes the GIL back for `state` (PyEval_RestoreThread; null: a thread Python does not know yet,
// PyGILState_Ensure), or waits for the process to end in a daemon thread of an exiting
// interpreter. Not from a destructor. Returns what PyGILState_Ensure returned, if it ran.
PyGILState_STATE take_gil_back(PyThreadState* state);

// The GIL taken back inside a region that released it (a callback of the library, on any thread),
// given up again at the end of the scope.
class GilTakenBack {
 public:
  GilTakenBack() : state_(PyGILState_GetThisThreadState()), ensured_(take_gil_back(state_)) {}
  ~GilTakenBack() {  // giving the GIL up never ends the thread
    if (state_)
      PyEval_SaveThread();
    else
      PyGILState_Release(ensured_);
  }
  GilTakenBack(const GilTakenBack&) = delete;
  GilTakenBack& operator=(const GilTakenBack&) = delete;

 private:
  PyThreadState* state_;  // null: a thread Python did not know, given a state by PyGILState_Ensure
  PyGILState_STATE ensured_;
};

// Ctrl-C, and the caller's progress callback, while simdex works without the GIL. Python runs
// signal handlers only in its main thread, holding the GIL: given as a progress callback of the
// library (called a few times a second from the thread that released the GIL), this takes the GIL
// back at most every 50 ms to run them (main thread) and to call progress(stage, done, total) if
// given, which also gets, whenever they come, a stage's first report and its last (done = total); an
// exception of either (KeyboardInterrupt, the callback's own) is thrown as py::error_already_set: the library
// stops its threads, publishes nothing, and the exception reaches Python as it was raised.
class SignalCheck {
 public:
  // `progress`: a callable or null, borrowed (an argument of the call, alive while it runs: no
  // reference is counted, as copies of this are made and dropped without the GIL).
  explicit SignalCheck(py::handle progress = {})
      : progress_(progress && !progress.is_none() ? progress.ptr() : nullptr) {}
  void operator()(std::string_view stage, std::uint64_t done, std::uint64_t total) {
    check(stage, done, total);
  }

 private:
  void check(std::string_view stage, std::uint64_t done, std::uint64_t total);
  PyObject* progress_;
  std::chrono::steady_clock::time_point next_{};
  std::string told_stage_;  // the last report given to progress_
  std::uint64_t told_done_ = 0, told_total_ = 0;
};

// f() with the GIL released; the GIL taken back after, as take_gil_back does.
template <class F>
auto without_gil(F&& f) -> decltype(f()) {
  using R = decltype(f());
  std::exception_ptr error;
  std::optional<std::conditional_t<std::is_void_v<R>, bool, R>> result;
  PyThreadState* state = PyEval_SaveThread();
  try {
    if constexpr (std::is_void_v<R>)
      f();
    else
      result.emplace(f());
  } catch (abi::__forced_unwind&) {  // never swallowed
    throw;
  } catch (...) {
    error = std::current_exception();
  }
  take_gil_back(state);
  if (error) std::rethrow_exception(error);
  if constexpr (!std::is_void_v<R>) return std::move(*result);
}

}  // namespace simdex::python
