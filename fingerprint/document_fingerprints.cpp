#include "fingerprint/document_fingerprints.h"

#include <algorithm>
#include <array>
#include <deque>
#include <exception>
#include <future>
#include <optional>
#include <vector>

#include "fingerprint/documents.h"
#include "fingerprint/text_pipeline.h"
#include "format/run_tasks.h"
#include "format/thread_count.h"
#include "io/input_stream.h"
#include "io/line_blocks.h"
#include "simdex/error.h"

namespace simdex {

namespace {

// Ranges of lines a thread, a block: the block's last range is its tail, where threads wait for the
// slowest one, so ranges are many (texts of one language fingerprint twice as fast as another's).
constexpr std::size_t kRangesPerThread = 16;

// A document of a range, its line counted from the range's first line (1): the range's place in
// the input, and so the line's number, is known only once the ranges before it are counted.
struct Record {
  std::uint64_t id = 0, line = 0, fingerprint = 0;
  std::size_t text_bytes = 0, key_begin = 0, key_size = 0;  // key: in RangeResult::keys
  IdKind id_kind = IdKind::integer;
};

struct RangeResult {
  std::vector<Record> records;
  std::string keys;
  std::uint64_t lines = 0;  // lines read, blank ones included
  // The range's first malformed line (its documents stop there), and its number in the range.
  std::exception_ptr error;
  std::string_view error_line;
  std::uint64_t error_line_in_range = 0;
};

struct Block {
  io::LineBlock lines;
  std::vector<RangeResult> results;
};

// The documents of a range of lines, fingerprinted, until its first malformed line.
void read_range(std::string_view range, RangeResult& r, text::DocumentLineParser& parser, Fingerprinter& f) {
  r.records.clear();
  r.keys.clear();
  r.lines = 0;
  r.error = nullptr;
  std::string_view line;
  try {
    Document doc;
    io::for_each_line(range, [&](std::string_view l) {
      line = l;
      ++r.lines;
      if (!parser.parse(line, r.lines, doc)) return;
      Record& rec = r.records.emplace_back();
      rec.id = doc.id;
      rec.line = r.lines;
      rec.id_kind = doc.id_kind;
      rec.text_bytes = doc.text.size();
      rec.key_begin = r.keys.size();
      rec.key_size = doc.key.size();
      r.keys.append(doc.key);
      rec.fingerprint = f.fingerprint(doc.text);
    });
  } catch (...) {
    r.error = std::current_exception();
    r.error_line = line;
    r.error_line_in_range = r.lines;
  }
}

}  // namespace

struct DocumentFingerprints::Impl {
  DocumentFormat format;
  DocumentOptions documents;
  FingerprintOptions fingerprint;
  unsigned threads;
  std::size_t block_bytes;
  std::optional<DocumentSource> directory;  // directory input
  std::optional<io::InputStream> in;        // any other
  bool ran = false;

  void run_lines(const Each& each, const Progress& progress);
  void run_directory(const Each& each, const Progress& progress);
};

std::size_t DocumentFingerprints::default_block_bytes(unsigned threads) {
  return std::max<std::size_t>(std::size_t{4} << 20, std::size_t{format::thread_count(threads)} << 20);
}

DocumentFingerprints::DocumentFingerprints(const std::string& input, DocumentOptions documents,
                                           const FingerprintOptions& fingerprint, unsigned threads,
                                           std::size_t block_bytes)
    : impl_(std::make_unique<Impl>()) {
  Fingerprinter check(fingerprint);  // options out of range: an error before anything is read
  impl_->format = text::input_format(input, documents.format);
  impl_->fingerprint = fingerprint;
  impl_->threads = format::thread_count(threads);
  impl_->block_bytes = std::max<std::size_t>(block_bytes, 1);
  if (impl_->format == DocumentFormat::directory) {
    impl_->directory.emplace(input, documents);
  } else {
    impl_->in.emplace(input);
    documents.format = impl_->format;
  }
  impl_->documents = std::move(documents);
}

DocumentFingerprints::~DocumentFingerprints() = default;

DocumentFormat DocumentFingerprints::format() const { return impl_->format; }

void DocumentFingerprints::run(const Each& each, const Progress& progress) {
  if (impl_->ran) throw Error(errc::usage, "DocumentFingerprints::run: the input was read already");
  impl_->ran = true;
  if (impl_->directory)
    impl_->run_directory(each, progress);
  else
    io::reporting_corrupt_stream(*impl_->in, [&] { impl_->run_lines(each, progress); });
}

// Block by block: while the workers parse and fingerprint one block, the calling thread reads the
// next, then hands the first's documents to `each` while the workers go on to the next.
void DocumentFingerprints::Impl::run_lines(const Each& each, const Progress& progress) {
  const DocumentOptions& d = documents;
  auto make_parser = [&] {
    return text::DocumentLineParser(in->name(), d.format, d.id_field, d.text_field, d.max_line_bytes,
                                    d.key_hash, true);
  };
  io::LineBlockReader reader(*in, block_bytes, d.max_line_bytes, text::DocumentLineParser::padding(),
                             threads);
  const std::size_t ranges = threads == 1 ? 1 : kRangesPerThread * threads;
  format::TaskPool pool(threads);
  std::vector<std::optional<text::DocumentLineParser>> parsers(threads);
  std::vector<std::optional<Fingerprinter>> fingerprinters(threads);
  auto work = [&](Block& b) {
    const std::vector<std::string_view>& lines = b.lines.ranges();
    b.results.resize(lines.size());
    pool.run(lines.size(), [&](std::size_t i, unsigned w, std::atomic<uint64_t>&) {
      text::DocumentLineParser& parser = parsers[w] ? *parsers[w] : parsers[w].emplace(make_parser());
      Fingerprinter& f = fingerprinters[w] ? *fingerprinters[w] : fingerprinters[w].emplace(fingerprint);
      read_range(lines[i], b.results[i], parser, f);
    });
  };
  auto start = [&](Block& b) {  // one thread: the caller's, when it waits for the block
    if (threads == 1) return std::async(std::launch::deferred, work, std::ref(b));
    return format::async_or_deferred([&work, &b] { work(b); });
  };
  // The documents of a block worked on, in input order; a range's error after its documents.
  std::uint64_t lines_before = 0;  // lines of the input before the block's range at hand
  text::DocumentLineParser explainer = make_parser();
  FingerprintedDocument out;
  auto emit = [&](const Block& b) {
    for (const RangeResult& r : b.results) {
      for (const Record& rec : r.records) {
        out.line = lines_before + rec.line;
        out.id = rec.id_kind == IdKind::line ? out.line - 1 : rec.id;
        out.id_kind = rec.id_kind;
        out.key = std::string_view(r.keys).substr(rec.key_begin, rec.key_size);
        out.text_bytes = rec.text_bytes;
        out.fingerprint = rec.fingerprint;
        each(out);
      }
      if (r.error) {
        // Parsed again, knowing its number: the error names the line (and gives the hints for line
        // 1) as a reader of the whole input would. Any other error is the worker's.
        Document doc;
        explainer.parse(r.error_line, lines_before + r.error_line_in_range, doc);
        std::rethrow_exception(r.error);
      }
      lines_before += r.lines;
    }
    if (b.lines.line_too_long())
      text::throw_document_too_long(in->name(), lines_before + 1, d.max_line_bytes);
    if (progress) progress({in->bytes_read(), in->size(), true});
  };

  std::array<Block, 2> blocks;
  reader.read(blocks[0].lines, nullptr, ranges);
  if (!blocks[0].lines.ranges().empty()) {  // line 1 (a line too long is that error first)
    const std::string_view first = blocks[0].lines.ranges().front();
    const std::string_view line = first.substr(0, first.find('\n'));
    if (line.size() <= d.max_line_bytes) text::refuse_utf16(line, in->name());
  }
  std::future<void> working = start(blocks[0]);
  for (std::size_t i = 0;; i ^= 1) {
    Block& ready = blocks[i];
    Block& next = blocks[i ^ 1];
    bool more = !ready.lines.at_end();
    std::exception_ptr read_error;  // thrown after the documents read before it
    if (more) {
      try {
        reader.read(next.lines, &ready.lines, ranges);
      } catch (...) {
        read_error = std::current_exception();
        more = false;
      }
    }
    working.get();
    if (more) working = start(next);
    emit(ready);
    if (read_error) std::rethrow_exception(read_error);
    if (!more) break;
  }
}

// A directory: its files read on the calling thread, their texts fingerprinted in batches in the
// background; the documents in flight wait in a queue for their fingerprints.
void DocumentFingerprints::Impl::run_directory(const Each& each, const Progress& progress) {
  std::deque<FingerprintedDocument> in_flight;
  std::deque<std::string> keys_in_flight;
  TextPipeline fingerprints(
      fingerprint, threads,
      [&](std::uint64_t, std::uint64_t fp) {
        FingerprintedDocument& doc = in_flight.front();
        doc.fingerprint = fp;
        doc.key = keys_in_flight.front();
        each(doc);
        in_flight.pop_front();
        keys_in_flight.pop_front();
      },
      block_bytes);
  Document doc;
  try {
    while (directory->next(doc)) {
      keys_in_flight.emplace_back(doc.key);
      in_flight.push_back({doc.id, doc.line, doc.id_kind, {}, doc.text.size(), 0});
      fingerprints.add(doc.text, 0);
      if (progress) progress(directory->position());
    }
  } catch (const Error&) {
    fingerprints.finish();  // the documents before a malformed one still come out
    throw;
  }
  fingerprints.finish();
}

}  // namespace simdex
