#include "format/standard_output_guard.h"

#include <unistd.h>

#include <atomic>

#include "simdex/error.h"

namespace simdex::format {

namespace {
std::atomic<bool> refusing{false};
}

void refuse_reading_standard_output(bool on) { refusing.store(on); }

bool is_standard_output(const struct stat& st) {
  struct stat out {};
  return ::fstat(STDOUT_FILENO, &out) == 0 && S_ISREG(out.st_mode) && st.st_dev == out.st_dev &&
         st.st_ino == out.st_ino;
}

bool is_standard_output(int fd) {
  struct stat st {};
  return fd != STDOUT_FILENO && ::fstat(fd, &st) == 0 && is_standard_output(st);
}

void check_not_standard_output(int fd, const std::string& name, CloseOnRefusal close) {
  if (!refusing.load() || !is_standard_output(fd)) return;
  if (close == CloseOnRefusal::yes) ::close(fd);
  throw Error(errc::usage, standard_output_is_input(name));
}

std::string standard_output_is_input(const std::string& name) {
  return "standard output is the same file as the input " + name +
         ": it would read its own output, or an input the shell emptied; redirect it to another file";
}

}  // namespace simdex::format
