#include "fingerprint/text_pipeline.h"

#include "fingerprint/fingerprint_all.h"
#include "format/thread_count.h"

namespace simdex {

void TextPipeline::Batch::clear() {
  text.clear();
  ends.clear();
  tags.clear();
}

void TextPipeline::Batch::fingerprint(const FingerprintOptions& options,
                                      std::vector<std::optional<Fingerprinter>>& fingerprinters,
                                      format::TaskPool& pool) {
  std::vector<std::string_view> views(ends.size());
  std::size_t begin = 0;
  for (std::size_t i = 0; i < ends.size(); begin = ends[i++])
    views[i] = std::string_view(text).substr(begin, ends[i] - begin);
  fingerprints.resize(ends.size());
  fingerprint_all_with(views, fingerprints, options, fingerprinters, pool);
}

TextPipeline::TextPipeline(const FingerprintOptions& options, unsigned threads, Emit emit,
                           std::size_t batch_bytes)
    : options_(options),
      threads_(format::thread_count(threads)),
      emit_(std::move(emit)),
      batch_bytes_(batch_bytes),
      serial_(options),
      fingerprinters_(threads_),
      pool_(threads_) {}

TextPipeline::~TextPipeline() {
  if (pending_.valid()) pending_.wait();
}

void TextPipeline::add(std::string_view text, std::uint64_t tag) {
  if (threads_ == 1) {
    emit_(tag, serial_.fingerprint(text));
    return;
  }
  filling_.text.append(text);
  filling_.ends.push_back(filling_.text.size());
  filling_.tags.push_back(tag);
  if (filling_.text.size() < batch_bytes_) return;
  wait_and_emit();
  std::swap(filling_, working_);
  filling_.clear();
  pending_ = format::async_or_deferred([this] { working_.fingerprint(options_, fingerprinters_, pool_); });
}

void TextPipeline::wait_and_emit() {
  if (!pending_.valid()) return;
  pending_.get();
  for (std::size_t i = 0; i < working_.tags.size(); ++i) emit_(working_.tags[i], working_.fingerprints[i]);
  working_.clear();
}

void TextPipeline::finish() {
  wait_and_emit();
  if (filling_.tags.empty()) return;
  filling_.fingerprint(options_, fingerprinters_, pool_);
  for (std::size_t i = 0; i < filling_.tags.size(); ++i) emit_(filling_.tags[i], filling_.fingerprints[i]);
  filling_.clear();
}

}  // namespace simdex
