#include "cli/serve.h"

#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstring>
#include <iostream>
#include <memory>
#include <optional>
#include <vector>

#include "cli/index_input.h"
#include "cli/lines.h"
#include "cli/output.h"
#include "cli/query_output.h"
#include "format/system_error.h"
#include "io/input_stream.h"
#include "simdex/error.h"

namespace simdex::cli {

namespace {

volatile std::sig_atomic_t reopen_requested = 0;
extern "C" void on_sighup(int) { reopen_requested = 1; }

// Without SA_RESTART: a read() waiting for the next line returns EINTR, so the index is reopened at
// once rather than when the next query comes.
void install_sighup_handler() {
  struct sigaction sa {};
  sa.sa_handler = on_sighup;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = 0;
  ::sigaction(SIGHUP, &sa, nullptr);
}

// The lines of a descriptor as they arrive. read() returns what the writer has written so far, so a
// line is handed out as soon as it is complete; a buffered stream would wait for a full buffer.
class LineReader {
 public:
  enum class Got { line, too_long, interrupted, end };
  explicit LineReader(int fd) : fd_(fd), buffer_(1 << 16) {}

  Got next(std::string& line) {
    for (;;) {
      if (const char* nl =
              static_cast<const char*>(std::memchr(buffer_.data() + begin_, '\n', end_ - begin_))) {
        const auto at = static_cast<std::size_t>(nl - buffer_.data());
        const bool too_long = std::exchange(skipping_, false) || at - begin_ > io::max_pair_line_bytes;
        line.assign(buffer_.data() + begin_, too_long ? 0 : at - begin_);
        begin_ = at + 1;
        return too_long ? Got::too_long : Got::line;
      }
      if (end_ - begin_ > io::max_pair_line_bytes) {  // not a query: dropped up to its end
        skipping_ = true;
        begin_ = end_ = 0;
      }
      std::memmove(buffer_.data(), buffer_.data() + begin_, end_ - begin_);
      end_ -= begin_;
      begin_ = 0;
      const ssize_t got = ::read(fd_, buffer_.data() + end_, buffer_.size() - end_);
      if (got < 0 && errno == EINTR) return Got::interrupted;
      if (got < 0) throw system_error("reading standard input");
      if (got == 0) {  // a last line without '\n' is a line
        if (end_ == 0 && !skipping_) return Got::end;
        const bool too_long = std::exchange(skipping_, false) || end_ > io::max_pair_line_bytes;
        line.assign(buffer_.data(), too_long ? 0 : end_);
        begin_ = end_ = 0;
        return too_long ? Got::too_long : Got::line;
      }
      end_ += static_cast<std::size_t>(got);
    }
  }

 private:
  int fd_;
  std::vector<char> buffer_;
  std::size_t begin_ = 0, end_ = 0;
  bool skipping_ = false;  // inside a line too long to be a query
};

}  // namespace

void serve_queries(const std::string& index_path, int k_option, const OutputStyle& style,
                   const KeysArg& keys_arg, const OpenOptions& open_options) {
  if (index_path == "-")
    throw Error(errc::usage, "--serve reads its queries from stdin: the index must be a file");
  // First: a SIGHUP sent while the index opens (a deployment that starts the server, publishes and
  // signals) would end the process. One that came during the open reopens before the first line.
  install_sighup_handler();
  auto index = std::make_unique<IndexInput>(index_path, open_options);
  unsigned k = (*index)->search_distance(k_option);
  std::optional<MappedKeyMap> keys = open_keys(keys_arg, index_path);
  // After a SIGHUP, a failed reopen keeps the index served; after a change in place (the old
  // mapping no longer holds the old file), it ends the server.
  enum class OnFailure { keep_serving, stop };
  auto reopen = [&](OnFailure on_failure) {
    reopen_requested = 0;
    try {
      // Index::reopen: a set keeps the members it has open that are unchanged, and refuses a
      // manifest older than the one it serves (stale_manifest: an old one copied back).
      auto fresh = std::make_unique<IndexInput>((*index)->reopen());
      k = (*fresh)->search_distance(k_option);
      std::optional<MappedKeyMap> fresh_keys = open_keys(keys_arg, index_path);
      index = std::move(fresh);
      keys = std::move(fresh_keys);
    } catch (const Error& e) {
      if (on_failure == OnFailure::stop)
        throw Error(errc::file_changed,
                    "reopening " + index_path + " after it changed in place failed: " + e.what());
      std::cerr << "simdex: reopening " << printable(index_path)
                << " failed; still serving the index opened before: " << printable(e.what()) << std::endl;
    }
  };

  Output out;
  std::vector<Hit> hits;
  // An answer is one unit (Output::begin_unit): one that fails part way (a file changed under it,
  // a key map line that is malformed) is dropped whole, so that the reader never gets half of one.
  bool answer_cut_short = false;  // then the server ends, whatever the error
  auto answer = [&](uint64_t query) {
    for (int attempt = 0;; ++attempt) {
      out.begin_unit();
      try {
        (*index)->query(query, k, hits);
        if (style.json) {
          print_answer_json(out, query, hits, style, keys ? &*keys : nullptr);
        } else {
          for (const Hit& h : hits) print_hit(out, std::nullopt, query, h, style, keys ? &*keys : nullptr);
          out.print("\n");
        }
        (*index)->check_unchanged();  // the ids were read from the mapping just now
        out.end_unit();
        return;
      } catch (const Error& e) {
        answer_cut_short = !out.discard_unit();
        if (answer_cut_short)
          throw Error(e.code(),
                      "an answer of more than " + std::to_string(Output::kUnitBytes >> 20) +
                          " MiB was partly written when it failed, and cannot be taken back: " + e.detail());
        // Overwritten in place instead of replaced: what was read is dropped, the file reopened.
        if (e.code() != errc::file_changed || attempt > 0) throw;
        reopen(OnFailure::stop);
      }
    }
  };
  auto answer_error = [&](std::string_view line, const Error& e) {
    std::cerr << "simdex: " << printable(e.what()) << std::endl;
    if (!style.json) return out.print("\n");
    auto& b = out.buffer();
    b.append(std::string_view(R"({"query":)"));
    append_json_string(b, line.substr(0, 100));
    b.append(std::string_view(R"(,"error":)"));
    append_json_string(b, e.what());
    out.print("}}\n");
  };

  LineReader in(STDIN_FILENO);
  std::string line;
  uint64_t line_number = 0;
  for (;;) {
    if (reopen_requested) reopen(OnFailure::keep_serving);
    const LineReader::Got got = in.next(line);
    if (got == LineReader::Got::interrupted) continue;
    if (got == LineReader::Got::end) break;
    // A SIGHUP sent before this line was written was delivered when read() returned: the line is
    // answered from the reopened index.
    if (reopen_requested) reopen(OnFailure::keep_serving);
    const std::string where = "<stdin>:" + std::to_string(++line_number);
    const std::string_view text = line_text(line, line_number);
    try {
      if (got == LineReader::Got::too_long)
        throw Error(errc::input,
                    where + ": line longer than " + std::to_string(io::max_pair_line_bytes) + " bytes");
      if (is_blank(text)) throw Error(errc::input, where + ": an empty line is not a query");
      answer(parse_query(text, where));
    } catch (const Error& e) {
      if (e.code() != errc::input || answer_cut_short) throw;
      answer_error(text, e);
    }
    out.flush();
  }
  out.close();
}

}  // namespace simdex::cli
