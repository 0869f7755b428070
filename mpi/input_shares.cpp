#include "mpi/input_shares.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <numeric>

#include "cli/lines.h"
#include "format/system_error.h"
#include "io/input_stream.h"
#include "simdex/error.h"

namespace simdex::mpi {

namespace {
[[noreturn]] void fail_io(const std::string& what, const std::string& path) {
  throw system_error(what + " " + path);
}

// A plain file mapped read-only (empty files map nothing).
class Mapped {
 public:
  explicit Mapped(const std::string& path) {
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) fail_io("cannot open", path);
    struct stat st {};
    if (::fstat(fd, &st) != 0) {
      ::close(fd);
      fail_io("cannot stat", path);
    }
    size_ = static_cast<uint64_t>(st.st_size);
    if (size_ > 0) {
      void* p = ::mmap(nullptr, size_, PROT_READ, MAP_PRIVATE, fd, 0);
      ::close(fd);
      if (p == MAP_FAILED) fail_io("cannot map", path);
      data_ = static_cast<const char*>(p);
      ::madvise(p, size_, MADV_SEQUENTIAL);
    } else {
      ::close(fd);
    }
  }
  ~Mapped() {
    if (data_) ::munmap(const_cast<char*>(data_), size_);
  }
  Mapped(const Mapped&) = delete;
  Mapped& operator=(const Mapped&) = delete;
  std::string_view bytes() const { return {data_, size_}; }

 private:
  const char* data_ = nullptr;
  uint64_t size_ = 0;
};

struct FileFacts {
  uint64_t size = 0;
  bool plain = true;  // neither gzip nor zstd, and a regular file
};

FileFacts facts_of(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) fail_io("cannot open", path);
  struct stat st {};
  unsigned char magic[4] = {};
  const bool ok = ::fstat(fd, &st) == 0;
  if (ok && !S_ISREG(st.st_mode)) {  // (pread of a pipe said "Illegal seek")
    ::close(fd);
    throw Error(errc::usage, "cannot read " + path +
                                 ": simdex-mpi reads regular files, which every rank opens at its path (not "
                                 "a pipe, a device or a directory): write the input to a file first");
  }
  const ssize_t got = ok ? ::pread(fd, magic, sizeof magic, 0) : -1;
  ::close(fd);
  if (!ok || got < 0) fail_io("cannot read", path);
  FileFacts f;
  f.size = static_cast<uint64_t>(st.st_size);
  const bool gzip = got >= 2 && magic[0] == 0x1f && magic[1] == 0x8b;
  const bool zstd = got >= 4 && magic[0] == 0x28 && magic[1] == 0xb5 && magic[2] == 0x2f && magic[3] == 0xfd;
  f.plain = S_ISREG(st.st_mode) && !gzip && !zstd;
  return f;
}

// The first byte of the first line that starts at or after `at` (a line starts after a '\n').
uint64_t line_start_at_or_after(std::string_view bytes, uint64_t at) {
  if (at == 0) return 0;
  if (at >= bytes.size()) return bytes.size();
  const auto nl = bytes.find('\n', at - 1);
  return nl == std::string_view::npos ? bytes.size() : nl + 1;
}

void for_each_range_line(std::string_view bytes, const Piece& p,
                         const std::function<void(std::string_view)>& fn) {
  for (uint64_t at = p.begin; at < p.end;) {
    const auto nl = bytes.find('\n', at);
    const uint64_t stop = nl == std::string_view::npos || nl >= p.end ? p.end : nl;
    fn(bytes.substr(at, stop - at));
    at = stop + 1;
  }
}
}  // namespace

std::vector<Piece> cut_input(const std::vector<std::string>& inputs, int ranks) {
  std::vector<FileFacts> facts;
  for (const auto& path : inputs) {
    if (path == "-") throw Error(errc::usage, "simdex-mpi build reads files, not stdin: name them");
    facts.push_back(facts_of(path));
  }
  std::vector<Piece> pieces;
  if (inputs.size() == 1 && facts[0].plain) {
    const Mapped file(inputs[0]);
    const uint64_t size = file.bytes().size();
    for (int r = 0; r < ranks; ++r) {
      const auto nominal = [&](int i) {
        return size / static_cast<uint64_t>(ranks) * static_cast<uint64_t>(i) +
               size % static_cast<uint64_t>(ranks) * static_cast<uint64_t>(i) / static_cast<uint64_t>(ranks);
      };
      const uint64_t begin = line_start_at_or_after(file.bytes(), nominal(r));
      const uint64_t end = r + 1 == ranks ? size : line_start_at_or_after(file.bytes(), nominal(r + 1));
      pieces.push_back({0, false, begin, end, r});
    }
    return pieces;
  }
  // Whole files: the largest first, each to the rank with the fewest bytes so far.
  std::vector<std::size_t> order(inputs.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return facts[a].size > facts[b].size; });
  std::vector<uint64_t> load(static_cast<std::size_t>(ranks), 0);
  pieces.resize(inputs.size());
  for (std::size_t f : order) {
    const auto least = static_cast<std::size_t>(std::min_element(load.begin(), load.end()) - load.begin());
    pieces[f] = {f, true, 0, facts[f].size, static_cast<int>(least)};
    load[least] += facts[f].size + 1;
  }
  return pieces;
}

void for_each_line(const std::string& path, const Piece& piece,
                   const std::function<void(std::string_view)>& fn) {
  if (!piece.whole) {
    const Mapped file(path);
    if (piece.end > file.bytes().size())
      throw Error(errc::io, path + " is shorter than when the job started: it changed under the build");
    for_each_range_line(file.bytes(), piece, [&](std::string_view text) {
      if (text.size() > io::max_pair_line_bytes)  // (its number is counted by the ranks before: the offset)
        throw Error(errc::input, path + ": the line at byte offset " +
                                     std::to_string(text.data() - file.bytes().data()) + " is longer than " +
                                     std::to_string(io::max_pair_line_bytes) + " bytes");
      fn(text);
    });
    return;
  }
  io::InputStream in(path);
  std::string line;
  io::reporting_corrupt_stream(in, [&] {
    while (in.next_line(line)) fn(line);
  });
}

int first_line_form(const std::string& path, const Piece& piece) {
  int form = -1;
  struct Found {};
  try {
    for_each_line(path, piece, [&](std::string_view line) {
      const std::optional<bool> with_id = cli::PairReader::has_id(line);
      if (!with_id) return;  // blank
      form = *with_id;
      throw Found{};
    });
  } catch (const Found&) {
  }
  return form;
}

uint64_t count_lines(const std::string& path, const Piece& piece) {
  uint64_t n = 0;
  if (!piece.whole) {
    const Mapped file(path);
    const std::string_view range = file.bytes().substr(piece.begin, piece.end - piece.begin);
    n = static_cast<uint64_t>(std::count(range.begin(), range.end(), '\n'));
    return n + (!range.empty() && range.back() != '\n');
  }
  for_each_line(path, piece, [&](std::string_view) { ++n; });
  return n;
}

}  // namespace simdex::mpi
