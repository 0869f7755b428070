#include "python/src/gil.h"

#include <atomic>
#include <chrono>
#include <thread>

#include "simdex/builder.h"
#include "writer/temp_files.h"

namespace simdex::python {

namespace {

unsigned long main_thread_ident = 0;  // the thread that finalizes the interpreter
std::atomic<bool> exiting{false};     // set by the atexit hook
std::atomic<int> returning{0};        // threads between the check below and holding the GIL

bool finalizing() {
#if PY_VERSION_HEX >= 0x030D0000
  return Py_IsFinalizing();
#else
  return _Py_IsFinalizing();
#endif
}

// A thread other than the main one, once the interpreter exits: it waits, without the GIL, for the
// process to end. Returns if the interpreter has not begun to finalize within a minute (the atexit
// hooks were run by hand, say).
void wait_while_exiting() {
  for (int i = 0; i < 60000; ++i) {
    if (finalizing())
      for (;;) std::this_thread::sleep_for(std::chrono::hours(1));
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
}

}  // namespace

void watch_interpreter_exit() {
  main_thread_ident =
      py::module_::import("threading").attr("main_thread")().attr("ident").cast<unsigned long>();
  py::module_::import("atexit").attr("register")(py::cpp_function([] {
    exiting.store(true);
    // Threads past the check hold or wait for the GIL: let them take it and return to Python
    // before the interpreter finalizes (bounded: a thread holding it too long is not waited for).
    const py::gil_scoped_release unlocked;  // the main thread: never ended by taking it back
    for (int i = 0; i < 2000 && returning.load() > 0; ++i)
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }));
  // Once the interpreter is finalized (the process ends next), the temporary files of builds that
  // daemon threads still run, which never return to remove them: as a signal's cleanup does.
  Py_AtExit([] { writer::remove_registered_temps(); });
  // SIGTERM and SIGHUP (a scheduler's or `timeout`'s stop, a closed terminal) end the process by
  // their default action, which Python leaves them: their temporary files removed first, as the
  // CLI does. Only where nothing handles or ignores them (remove_temporary_files_on_signals keeps
  // any other disposition, and Python's own SIGINT handler): a program's signal.signal() later
  // replaces this. A forked child forgets its parent's files (writer/temp_files.cpp).
  remove_temporary_files_on_signals();
}

void SignalCheck::check(std::string_view stage, std::uint64_t done, std::uint64_t total) {
  const bool main = PyThread_get_thread_ident() == main_thread_ident;  // no handler runs elsewhere
  if (!main && !progress_) return;
  const auto now = std::chrono::steady_clock::now();
  // A stage's first report and its last (a bar's 100%, told once) are never skipped.
  const bool first = progress_ && stage != told_stage_;
  const bool last =
      progress_ && total > 0 && done == total && (first || done != told_done_ || total != told_total_);
  if (now < next_ && !first && !last) return;
  next_ = now + std::chrono::milliseconds(50);
  const GilTakenBack locked;
  if (main && PyErr_CheckSignals() != 0) throw py::error_already_set();
  if (progress_) {
    told_stage_ = stage;
    told_done_ = done;
    told_total_ = total;
    py::reinterpret_borrow<py::object>(progress_)(py::str(stage.data(), stage.size()), done, total);
  }
}

PyGILState_STATE take_gil_back(PyThreadState* state) {
  const bool main = PyThread_get_thread_ident() == main_thread_ident;  // never ended
  returning.fetch_add(1);  // before the check: the hook sees either this thread or its own flag
  if (!main && (exiting.load() || finalizing())) {
    returning.fetch_sub(1);
    wait_while_exiting();
    returning.fetch_add(1);
  }
  PyGILState_STATE ensured{};
  if (state)
    PyEval_RestoreThread(state);
  else
    ensured = PyGILState_Ensure();
  returning.fetch_sub(1);
  return ensured;
}

}  // namespace simdex::python
