#include "cli/index_input.h"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <functional>

#include "format/layout.h"
#include "format/physical_memory.h"
#include "format/set_manifest.h"
#include "format/standard_output_guard.h"
#include "format/system_error.h"
#include "io/fd_io.h"
#include "simdex/error.h"

namespace simdex::cli {

namespace {
// Appends what standard input holds, up to `limit` bytes in all.
void read_stdin_up_to(std::vector<uint8_t>& bytes, std::size_t limit) {
  std::size_t size = bytes.size();
  while (size < limit) {
    if (bytes.size() - size < (1 << 16))
      bytes.resize(std::min(limit, std::max<std::size_t>(1 << 20, bytes.size() * 2)));
    const ssize_t got =
        io::read_some(STDIN_FILENO, bytes.data() + size, std::min(bytes.size(), limit) - size);
    if (got == 0) break;
    if (got < 0) throw system_error("reading the index from standard input");
    size += static_cast<std::size_t>(got);
  }
  bytes.resize(size);
}

// An index from a pipe: its header first, so that input that is no index (or no end: /dev/zero) is
// refused after 128 bytes; then up to the size the header states and one byte more (a longer
// input is then the reader's file_size_mismatch), never all of a stream. A stated size above the
// machine's memory is refused before any of it is read: such a stream could only end in the
// process being killed.
std::vector<uint8_t> read_index_from_stdin(
    const std::function<void(const uint8_t*, std::size_t)>& check_head) {
  std::vector<uint8_t> bytes;
  read_stdin_up_to(bytes, format::FileHeader::kEncodedBytes);
  check_head(bytes.data(), bytes.size());
  if (bytes.size() == format::FileHeader::kEncodedBytes) {
    const uint64_t stated = format::FileHeader::decode_from(bytes.data()).file_bytes;  // magic, version
    if (const uint64_t memory = format::physical_memory_bytes(); memory > 0 && stated > memory)
      throw Error(errc::io, "the index on standard input states " + std::to_string(stated) +
                                " bytes, more than this machine's memory (" + std::to_string(memory) +
                                " bytes); an index read from a pipe is held in memory whole: give its "
                                "path (or redirect the file to stdin, which is mapped, not copied)");
    read_stdin_up_to(bytes, stated < SIZE_MAX - 1 ? static_cast<std::size_t>(stated) + 1 : SIZE_MAX);
  }
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
  if (::isatty(STDIN_FILENO) == 1)  // (it would wait for an index typed in)
    throw Error(errc::usage,
                "the index is read from stdin (-), which is a terminal: pipe or redirect an index "
                "file into it, or give its path");
  // A set's members are files named relative to its manifest: there is nothing beside stdin.
  auto refuse_set = [](const uint8_t* head, std::size_t size) {
    if (format::has_set_magic(head, size))
      throw Error(errc::usage,
                  "an index set cannot be read from stdin (its members are files beside its manifest): give "
                  "the manifest's path");
  };
  format::check_not_standard_output(STDIN_FILENO, "<stdin>");
  struct stat st {};
  if (::fstat(STDIN_FILENO, &st) == 0 && S_ISREG(st.st_mode) && ::lseek(STDIN_FILENO, 0, SEEK_CUR) == 0) {
    uint8_t head[8];
    const ssize_t got = ::pread(STDIN_FILENO, head, sizeof head, 0);
    refuse_set(head, got > 0 ? static_cast<std::size_t>(got) : 0);
    index_.emplace(Index::open("/proc/self/fd/0", options));  // a file: mapped, not copied
    return;
  }
  bytes_ = read_index_from_stdin(refuse_set);
  index_.emplace(Index::from_buffer(bytes_.data(), bytes_.size()));
}

void refuse_two_stdin_inputs(const std::string& index, const std::string& other, const std::string& what,
                             const std::string& instead) {
  if (index == "-" && other == "-")
    throw Error(errc::usage, "the index is read from stdin (-), so the " + what + " cannot be: " + instead);
}

}  // namespace simdex::cli
