// Documents read and fingerprinted on all cores, handed back in input order: what `simdex
// fingerprint`, `build --text`, `query/join --text` and `dedup` do with their input.
//
// From a file or stdin the calling thread only reads bytes, in blocks of whole lines
// (io/line_blocks.h); the workers parse a block's lines, each range of lines with a parser of its
// own, and fingerprint their texts while the next block is read. JSON parsing is not serial, so a
// run on many cores is bound by reading (bench/RESULTS.md). A directory's files are read one by one
// on the calling thread and their texts fingerprinted in batches (TextPipeline).
//
// The documents, their ids and line numbers, and the error of a malformed line (after every
// document before it) are those of DocumentSource (include/simdex/documents.h), at any thread count.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include "simdex/documents.h"
#include "simdex/fingerprint.h"

namespace simdex {

// A document once fingerprinted: what its readers keep of it (its text is gone by then).
struct FingerprintedDocument {
  std::uint64_t id = 0;
  std::uint64_t line = 0;  // as Document::line
  IdKind id_kind = IdKind::integer;
  std::string_view key;  // id_kind key: the key, valid during the call; else empty
  std::size_t text_bytes = 0;
  std::uint64_t fingerprint = 0;
};

class DocumentFingerprints {
 public:
  // The bytes of a block of lines for `threads` threads (format::thread_count's): 4 MiB, or 1 MiB
  // a thread where that is more, so that each thread has many ranges of lines to balance its work.
  static std::size_t default_block_bytes(unsigned threads);

  // Opens `input` as DocumentSource does (a file, gzip or zstd or plain, "-" for stdin, or a
  // directory; the same errors), on `threads` threads (format::thread_count's; 1: the calling
  // thread alone). Two blocks of block_bytes (or the longest line) are held at once. Throws
  // Error(usage) for fingerprint options out of range.
  DocumentFingerprints(const std::string& input, DocumentOptions documents,
                       const FingerprintOptions& fingerprint, unsigned threads, std::size_t block_bytes);
  ~DocumentFingerprints();
  DocumentFingerprints(const DocumentFingerprints&) = delete;
  DocumentFingerprints& operator=(const DocumentFingerprints&) = delete;

  DocumentFormat format() const;  // as DocumentSource::format

  using Each = std::function<void(const FingerprintedDocument&)>;
  using Progress = std::function<void(const DocumentSource::Position&)>;
  // Reads the input (once): each(document) for every document in input order, on the calling
  // thread; progress(how far reading has come) now and then. Throws as DocumentSource::next does,
  // after each() of every document before the malformed one.
  void run(const Each& each, const Progress& progress = {});

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace simdex
