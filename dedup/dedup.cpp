// simdex::dedup: fingerprint -> index -> clusters -> keep one per cluster -> the kept records.
#include "simdex/dedup.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <bit>
#include <cerrno>
#include <deque>
#include <filesystem>
#include <numeric>
#include <optional>

#include "dedup/dedup_temp.h"
#include "fingerprint/document_fingerprints.h"
#include "fingerprint/pending_key_map.h"
#include "fingerprint/text_pipeline.h"
#include "format/system_error.h"
#include "io/fd_io.h"
#include "io/input_stream.h"
#include "reader/change_watch.h"
#include "simdex/batch.h"
#include "simdex/builder.h"
#include "simdex/error.h"
#include "simdex/index.h"
#include "writer/atomic_file.h"
#include "writer/output_file.h"
#include "writer/run_file.h"
#include "writer/temp_files.h"

namespace simdex {

namespace fs = std::filesystem;
using writer::OutputFile;

std::string_view keep_policy_name(KeepPolicy policy) {
  switch (policy) {
    case KeepPolicy::first:
      return "first";
    case KeepPolicy::longest:
      return "longest";
    case KeepPolicy::shortest:
      return "shortest";
  }
  return "?";
}

KeepPolicy keep_policy(std::string_view name) {
  for (KeepPolicy p : kKeepPolicies)
    if (keep_policy_name(p) == name) return p;
  throw Error(errc::usage, "unknown keep policy '" + std::string(name) + "' (first, longest or shortest)");
}

std::vector<std::uint64_t> DedupResult::removed_documents() const {
  std::vector<std::uint64_t> out;
  out.reserve(removed);
  for (const DedupCluster& c : clusters)
    for (std::size_t i = 0; i < c.members.size(); ++i)
      if (i != c.kept) out.push_back(c.members[i].document);
  std::sort(out.begin(), out.end());
  return out;
}

std::unique_ptr<writer::OwnedTemp> dedup_temp_file(const std::string& dir_or_empty,
                                                   const std::string& suffix) {
  const std::string dir = dir_or_empty.empty() ? writer::system_temp_directory() : dir_or_empty;
  writer::require_room_for_temporary_paths(dir);
  // Those of runs that are gone (killed, or ended by SIGPIPE), which nobody else removes: the
  // files, and the temporary index's own half-written file (AtomicFile's ".NAME.tmp-*", which
  // a write of that name would remove, but no run writes that name again).
  writer::remove_unlocked(dir, ".simdex-dedup-tmp-");
  writer::remove_unlocked(dir, "..simdex-dedup-tmp-");
  static std::atomic<unsigned> counter{0};
  return std::make_unique<writer::OwnedTemp>(
      [&] {
        return (fs::path(dir) / (".simdex-dedup-tmp-" + std::to_string(::getpid()) + "-" +
                                 std::to_string(counter++) + suffix))
            .string();
      },
      O_RDWR, 0600);
}

namespace {

// What the clustering keeps of each document (about 40 bytes).
struct Record {
  std::uint64_t id, fingerprint, line, bytes;
  IdKind kind;
};

std::string temp_dir_of(const DedupOptions& o) {
  return o.temp_dir.empty() ? writer::system_temp_directory() : o.temp_dir;
}

// A descriptor closed at the end of the scope (-1: none).
struct ClosedAtEnd {
  int fd;
  ~ClosedAtEnd() {
    if (fd >= 0) ::close(fd);
  }
};

// Whether `input` can be read only once: standard input, a pipe (a second open of a FIFO waits
// for a writer that is gone), a device or a socket. A path that cannot be stat'ed is left to the
// reader, which names the error.
bool readable_once(const std::string& input) {
  struct stat st {};
  if (input == "-") return true;
  return ::stat(input.c_str(), &st) == 0 && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode);
}

// An input that can be read only once copied to a temporary file (the input is read twice), bytes
// as they come: a compressed stream stays compressed.
std::unique_ptr<writer::OwnedTemp> spool(const std::string& input, const std::string& name,
                                         const DedupOptions& o) {
  const int fd = input == "-" ? 0 : ::open(input.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) throw system_error("cannot open input", name);
  const ClosedAtEnd close_input{input == "-" ? -1 : fd};
  auto copy = dedup_temp_file(temp_dir_of(o), ".input");
  std::vector<char> buffer(1 << 20);
  for (;;) {
    const ssize_t n = io::read_some(fd, buffer.data(), buffer.size());
    if (n < 0) throw system_error("reading " + name);
    if (n == 0) break;
    if (!io::write_all(copy->fd(), buffer.data(), static_cast<std::size_t>(n)))
      throw system_error("writing", copy->path());
  }
  return copy;
}

// A regular file input as it was when first read (device, inode, size, modification time): it is
// read twice, and the second read must see the same bytes (a document count alone misses an edit
// in place, and the output would hold a record that was never fingerprinted).
struct InputStamp {
  bool regular = false;
  struct stat st {};
};

InputStamp stamp(const std::string& path) {
  InputStamp s;
  s.regular = ::stat(path.c_str(), &s.st) == 0 && S_ISREG(s.st.st_mode);
  return s;
}

void require_unchanged(const std::string& path, const InputStamp& first) {
  if (!first.regular) return;
  const InputStamp now = stamp(path);
  const struct stat &a = first.st, &b = now.st;
  if (!now.regular || a.st_dev != b.st_dev || a.st_ino != b.st_ino || !reader::same_contents(a, b))
    throw Error(errc::input, path + ": the input changed while it was read (replaced, or written to: its " +
                                 "size or modification time is not the first read's); nothing was written");
}

DocumentOptions document_options(const DedupOptions& o) {
  DocumentOptions d = o.documents;
  const std::uint64_t memory = o.memory_bytes ? o.memory_bytes : default_memory_bytes();
  d.max_line_bytes = std::min<std::uint64_t>(d.max_line_bytes, memory / 4);  // a line is held whole
  return d;
}

void report(const DedupOptions& o, std::string_view stage, std::uint64_t done, std::uint64_t total) {
  if (o.progress) o.progress(stage, done, total);
}

// Calls each(document) for every document of an input, fingerprinted, in input order, two batches
// of batch_bytes held at once (one fingerprinted on all cores while the next is read); returns the
// format it was read as.
using ReadDocuments = std::function<DocumentFormat(
    std::size_t batch_bytes, const std::function<void(const FingerprintedDocument&)>& each)>;

// Pass 1: every document's record, and its fingerprint into `builder` (unless it has no words), every id into
// `keys`.
DocumentFormat read_documents(const ReadDocuments& read, const DedupOptions& o, IndexBuilder& builder,
                              KeyMapBuilder& keys, std::vector<Record>& records) {
  const std::uint64_t memory = o.memory_bytes ? o.memory_bytes : default_memory_bytes();
  const std::size_t batch_bytes = std::max<std::uint64_t>(memory / 32, 1 << 20);
  const DocumentFormat format = read(batch_bytes, [&](const FingerprintedDocument& doc) {
    keys.add(doc.id, doc.id_kind, doc.key, doc.line);
    records.push_back({doc.id, doc.fingerprint, doc.line, doc.text_bytes, doc.id_kind});
    // A document without words (fingerprint 0) is compared with none: in the index it would be
    // within k of every fingerprint of at most k bits set and join them into one cluster.
    if (doc.fingerprint != 0) builder.add(doc.fingerprint, doc.id);
  });
  report(o, "fingerprinting", records.size(), 0);
  return format;
}

ReadDocuments read_file(const std::string& input, const DedupOptions& o) {
  return
      [&input, &o](std::size_t batch_bytes, const std::function<void(const FingerprintedDocument&)>& each) {
        // Blocks of lines no larger than the fingerprinting needs to keep every thread busy: one read
        // (or decompressed) while the workers are on another, from the start of the input.
        const std::size_t block_bytes =
            std::min(batch_bytes, DocumentFingerprints::default_block_bytes(o.threads));
        DocumentFingerprints docs(input, document_options(o), o.fingerprint, o.threads, block_bytes);
        // How much of the input was read: the stage "reading" counts bytes (of a directory: files)
        // against the input's size, so it shows a percentage however long the documents are.
        docs.run(each, [&](const DocumentSource::Position& at) {
          report(o, at.in_bytes ? "reading" : "reading files", at.done, at.total);
        });
        return docs.format();
      };
}

// Texts in batches: document i is the i-th text, id i, as on line i + 1 of a JSON Lines file of
// records without an id.
ReadDocuments read_texts(const TextBatches& next, const DedupOptions& o) {
  return [&next, &o](std::size_t batch_bytes, const std::function<void(const FingerprintedDocument&)>& each) {
    std::vector<std::string_view> batch;
    FingerprintedDocument doc;
    doc.id_kind = IdKind::line;
    std::deque<std::size_t> sizes_in_flight;  // of the texts added, until their fingerprints come
    TextPipeline fingerprints(
        o.fingerprint, o.threads,
        [&](std::uint64_t n, std::uint64_t fingerprint) {
          doc.id = n;
          doc.line = n + 1;
          doc.text_bytes = sizes_in_flight.front();
          doc.fingerprint = fingerprint;
          sizes_in_flight.pop_front();
          each(doc);
        },
        batch_bytes);
    for (std::uint64_t n = 0;;) {
      batch.clear();
      next(batch);
      if (batch.empty()) break;
      for (const std::string_view text : batch) {
        sizes_in_flight.push_back(text.size());
        fingerprints.add(text, n++);
        if ((n & 0xffff) == 0) report(o, "fingerprinting", n, 0);  // texts: a count, their number unknown
      }
    }
    fingerprints.finish();
    return DocumentFormat::jsonl;
  };
}

// The index's clusters as groups of documents: a stored fingerprint's ids are resolved to the
// documents with that (id, fingerprint), so documents sharing a key and a text are duplicates too.
void cluster_documents(const Index& index, const std::vector<Record>& records, const KeyMapBuilder& keys,
                       const DedupOptions& o, DedupResult& result) {
  std::vector<std::uint64_t> by_id(records.size());
  std::iota(by_id.begin(), by_id.end(), 0);
  auto key = [&](std::uint64_t d) { return std::pair(records[d].id, records[d].fingerprint); };
  std::sort(by_id.begin(), by_id.end(),
            [&](std::uint64_t a, std::uint64_t b) { return key(a) != key(b) ? key(a) < key(b) : a < b; });
  BatchOptions batch;
  batch.k = static_cast<int>(o.k);
  batch.threads = o.threads;
  batch.progress = [&](std::string_view stage, std::uint64_t done, std::uint64_t total) {
    report(o, stage, done, total);
  };
  ClusterOptions cluster;
  cluster.min_size = 1;  // a lone fingerprint may still stand for several documents
  std::vector<std::uint64_t> docs;
  find_clusters(index, batch, cluster, [&](std::span<const ClusterMember> members) {
    docs.clear();
    for (const ClusterMember& m : members) {
      for (std::uint64_t id : m.ids) {
        const auto target = std::pair(id, m.fingerprint);
        auto d = std::partition_point(by_id.begin(), by_id.end(),
                                      [&](std::uint64_t x) { return key(x) < target; });
        for (; d != by_id.end() && key(*d) == target; ++d) docs.push_back(*d);
      }
    }
    if (docs.size() < 2) return;
    std::sort(docs.begin(), docs.end());
    DedupCluster c;
    for (std::uint64_t d : docs) {
      const Record& r = records[d];
      DedupMember m;
      m.document = d;
      m.line = r.line;
      m.id = r.id;
      m.id_kind = r.kind;
      if (r.kind == IdKind::key) m.key = std::string(keys.find(r.id).value_or(""));
      m.fingerprint = r.fingerprint;
      m.bytes = r.bytes;
      c.members.push_back(std::move(m));
    }
    for (std::size_t i = 1; i < c.members.size(); ++i) {  // ties: the first in input order
      const std::uint64_t b = c.members[i].bytes, best = c.members[c.kept].bytes;
      if ((o.keep == KeepPolicy::longest && b > best) || (o.keep == KeepPolicy::shortest && b < best))
        c.kept = i;
    }
    for (DedupMember& m : c.members)
      m.distance = static_cast<unsigned>(std::popcount(m.fingerprint ^ c.members[c.kept].fingerprint));
    result.removed += c.members.size() - 1;
    result.clusters.push_back(std::move(c));
  });
  std::sort(result.clusters.begin(), result.clusters.end(), [](const DedupCluster& a, const DedupCluster& b) {
    return a.members.front().document < b.members.front().document;
  });
}

// Before any work (standard input is copied first): Error(usage) for options out of range.
void check_options(const DedupOptions& o) {
  if (o.k > 32) throw Error(errc::usage, "k must be 0..32, not " + std::to_string(o.k));
  // A document is held whole within a quarter of it, the index built within half.
  if (o.memory_bytes != 0 && o.memory_bytes < (std::uint64_t{1} << 20))
    throw Error(errc::usage,
                "the memory bound must be at least 1 MiB (1048576 bytes), or 0 for the default, not " +
                    std::to_string(o.memory_bytes));
}

DedupResult find_in(const ReadDocuments& read, const DedupOptions& o) {
  const std::uint64_t memory = o.memory_bytes ? o.memory_bytes : default_memory_bytes();
  BuildOptions build;
  build.fingerprint_settings = fingerprint_settings(o.fingerprint);  // the index says how it was made
  build.k = o.k;
  build.threads = o.threads;
  build.memory_bytes = memory / 2;
  build.temp_dir = temp_dir_of(o);
  build.progress = [&](std::string_view stage, std::uint64_t done, std::uint64_t total) {
    report(o, stage, done, total);
  };
  DedupResult result;
  result.k = o.k;
  result.keep = o.keep;
  std::vector<Record> records;
  KeyMapBuilder keys;
  std::unique_ptr<writer::OwnedTemp> temp_index;
  std::string index_path = o.index;
  {
    IndexBuilder builder(build);
    result.format = read_documents(read, o, builder, keys, records);
    result.documents = records.size();
    for (std::uint64_t d = 0; d < records.size(); ++d)
      if (records[d].fingerprint == 0) result.without_words.push_back(d);
    keys.check();  // a collision stops the run before the index is written
    if (index_path.empty()) {
      // The build renames its file over this placeholder: the index is then removed with it.
      temp_index = dedup_temp_file(temp_dir_of(o), ".sdx");
      index_path = temp_index->path();
    }
    // --index's key map is written before the index is published and put in place right after
    // it: a failed run leaves the old index with its old map. Without keys, a map of an earlier
    // index at this path would mislead: it goes.
    PendingKeyMap map;
    if (!o.index.empty())
      map = keys.key_count() > 0 ? PendingKeyMap::of(keys, key_map_path(o.index))
                                 : PendingKeyMap::removal(key_map_path(o.index));
    builder.write(index_path);
    map.commit();
  }
  // The build renamed its file over the placeholder, whose lock stays on the file replaced: the
  // index is locked again, so that other runs' cleanup leaves it alone while this one reads it.
  const int index_lock = temp_index ? ::open(index_path.c_str(), O_RDONLY | O_CLOEXEC) : -1;
  if (index_lock >= 0) ::flock(index_lock, LOCK_EX | LOCK_NB);
  const ClosedAtEnd close_lock{index_lock};
  const Index index = Index::open(index_path);
  cluster_documents(index, records, keys, o, result);
  return result;
}

// The kept documents of `input` to `out`, then published; `first_read`: the input as the first read
// found it, checked once this read is done.
void write_from_file(const std::string& input, const DedupResult& result, OutputFile& out,
                     const DedupOptions& o, const InputStamp* first_read = nullptr) {
  const std::vector<std::uint64_t> removed = result.removed_documents();
  std::string buffer;
  auto emit = [&](bool force) {
    if (force || buffer.size() >= (1 << 16)) {
      out.write(buffer);
      buffer.clear();
    }
  };
  std::uint64_t document = 0;
  auto kept = [&] { return !std::binary_search(removed.begin(), removed.end(), document++); };
  if (result.format == DocumentFormat::directory) {
    DocumentOptions d = document_options(o);
    d.format = DocumentFormat::directory;
    const DocumentSource docs(input, d);  // lists the directory: the order next() read it in
    for (const std::string& path : docs.paths()) {
      if (kept()) (buffer += escape_key(path)) += '\n';
      emit(false);
    }
  } else {
    // The same lines the documents came from, byte for byte (a CR before the newline included).
    const std::size_t max_bytes = document_options(o).max_line_bytes;
    io::InputStream in(input);
    std::string line;
    for (;;) {
      const io::LineResult r = io::read_line(in.stream(), line, max_bytes);
      if (r == io::LineResult::end) break;
      if (r == io::LineResult::too_long)
        throw Error(errc::input, in.name() + ": the input changed between its two reads");
      std::string_view text = line;
      if (text.ends_with('\r')) text.remove_suffix(1);
      if (result.format == DocumentFormat::jsonl && text.find_first_not_of(" \t") == std::string_view::npos)
        continue;  // a blank line: no document
      if (kept()) (buffer += line) += '\n';
      emit(false);
    }
  }
  if (document != result.documents)
    throw Error(errc::input, "the input changed between its two reads (" + std::to_string(result.documents) +
                                 " documents, then " + std::to_string(document) + ")");
  if (first_read) require_unchanged(input, *first_read);
  emit(true);
  out.finish();
  if (o.before_publish) o.before_publish(result);
  out.close();
}

// Runs fn(path of the input): an input that can be read only once is copied to a temporary file
// first, and messages name the input ("<stdin>") rather than that file.
template <typename Fn>
auto with_input(const std::string& input, const DedupOptions& options, Fn fn) {
  if (!readable_once(input)) return fn(input);
  const std::string name = input == "-" ? "<stdin>" : input;
  const auto copy = spool(input, name, options);
  try {
    return fn(copy->path());
  } catch (const Error& e) {
    std::string detail = e.detail();
    for (auto at = detail.find(copy->path()); at != std::string::npos;
         at = detail.find(copy->path(), at + name.size()))
      detail.replace(at, copy->path().size(), name);
    throw Error(e.code(), detail);
  }
}

// --index and its key map replace the files they name: never the documents being deduplicated.
void refuse_index_over_input(const std::string& input, const DedupOptions& options) {
  if (options.index.empty()) return;
  writer::refuse_input_as_output(input, options.index, "the index");
  writer::refuse_input_as_output(input, key_map_path(options.index), "the index's key map");
}

}  // namespace

DedupResult find_duplicates(const std::string& input, const DedupOptions& options) {
  check_options(options);
  refuse_index_over_input(input, options);
  return with_input(input, options,
                    [&](const std::string& path) { return find_in(read_file(path, options), options); });
}

DedupResult find_duplicates(const TextBatches& texts, const DedupOptions& options) {
  check_options(options);
  return find_in(read_texts(texts, options), options);
}

void write_deduplicated(const std::string& input, const DedupResult& result, const std::string& output,
                        const DedupOptions& options) {
  check_options(options);
  if (readable_once(input))
    throw Error(errc::usage,
                (input == "-" ? std::string("standard input") : "'" + input + "' (not a regular file)") +
                    " cannot be read a second time: use simdex::dedup, which keeps a copy");
  writer::refuse_input_as_output(input, output);
  OutputFile out(output);
  write_from_file(input, result, out, options);
}

DedupResult dedup(const std::string& input, const std::string& output, const DedupOptions& options) {
  check_options(options);
  // Each would lose the input or the index: the output replaces what it names, after the index.
  writer::refuse_input_as_output(input, output);
  refuse_index_over_input(input, options);
  writer::refuse_same_output(options.index, "the index", output, "the output");
  if (!options.index.empty())
    writer::refuse_same_output(key_map_path(options.index), "the index's key map", output, "the output");
  OutputFile out(output);  // before the work: a path that cannot be written fails now
  return with_input(input, options, [&](const std::string& path) {
    const InputStamp first_read = stamp(path);
    DedupResult result = find_in(read_file(path, options), options);
    require_unchanged(path, first_read);  // during the first read
    write_from_file(path, result, out, options, &first_read);
    return result;
  });
}

}  // namespace simdex
