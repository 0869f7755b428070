#include "cli/index_input.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "format/set_manifest.h"
#include "simdex/error.h"

namespace simdex::cli {

namespace {
std::vector<uint8_t> read_all_stdin() {
  std::vector<uint8_t> bytes;
  std::size_t size = 0;
  for (;;) {
    if (bytes.size() - size < (1 << 16)) bytes.resize(std::max<std::size_t>(1 << 20, bytes.size() * 2));
    const ssize_t got = ::read(STDIN_FILENO, bytes.data() + size, bytes.size() - size);
    if (got == 0) break;
    if (got < 0 && errno == EINTR) continue;
    if (got < 0)
      throw Error(errc::io, std::string("reading the index from standard input: ") + std::strerror(errno));
    size += static_cast<std::size_t>(got);
  }
  bytes.resize(size);
  bytes.shrink_to_fit();
  return bytes;
}
}  // namespace

IndexInput::IndexInput(const std::string& path, const OpenOptions& options) {
  if (path != "-") {
    index_.emplace(Index::open(path, options));
    return;
  }
  from_stdin_ = true;
  // A set's members are files named relative to its manifest: there is nothing beside stdin.
  auto refuse_set = [](const uint8_t* head, std::size_t size) {
    if (format::has_set_magic(head, size))
      throw Error(errc::usage,
                  "an index set cannot be read from stdin (its members are files beside its manifest): give "
                  "the manifest's path");
  };
  struct stat st {};
  if (::fstat(STDIN_FILENO, &st) == 0 && S_ISREG(st.st_mode) && ::lseek(STDIN_FILENO, 0, SEEK_CUR) == 0) {
    uint8_t head[8];
    const ssize_t got = ::pread(STDIN_FILENO, head, sizeof head, 0);
    refuse_set(head, got > 0 ? static_cast<std::size_t>(got) : 0);
    index_.emplace(Index::open("/proc/self/fd/0", options));  // a file: mapped, not copied
    return;
  }
  bytes_ = read_all_stdin();
  refuse_set(bytes_.data(), bytes_.size());
  index_.emplace(Index::from_buffer(bytes_.data(), bytes_.size()));
}

void refuse_two_stdin_inputs(const std::string& index, const std::string& other, const std::string& what,
                             const std::string& instead) {
  if (index == "-" && other == "-")
    throw Error(errc::usage, "the index is read from stdin (-), so the " + what + " cannot be: " + instead);
}

}  // namespace simdex::cli
