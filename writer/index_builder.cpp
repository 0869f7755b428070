#include <algorithm>

#include "simdex/builder.h"
#include "writer/index_writer.h"

namespace simdex {

IndexBuilder::IndexBuilder(BuildOptions options) : options_(std::move(options)) {}

void IndexBuilder::add(uint64_t fingerprint, uint64_t id) { pairs_.emplace_back(fingerprint, id); }

BuildSummary IndexBuilder::write(const std::string& path) {
  if (options_.progress) options_.progress("sort", 0, pairs_.size());
  std::sort(pairs_.begin(), pairs_.end());
  pairs_.erase(std::unique(pairs_.begin(), pairs_.end()), pairs_.end());
  writer::IndexContents contents;
  contents.ids.reserve(pairs_.size());
  for (std::size_t i = 0; i < pairs_.size(); ++i) {
    if (i == 0 || pairs_[i].first != pairs_[i - 1].first) {
      contents.id_offsets.push_back(contents.ids.size());
      contents.fingerprints.push_back(pairs_[i].first);
    }
    contents.ids.push_back(pairs_[i].second);
  }
  contents.id_offsets.push_back(contents.ids.size());
  const Scheme scheme = options_.scheme ? *options_.scheme : Scheme::automatic(contents.fingerprints.size(), options_.k);
  return writer::write_index(path, contents, scheme, options_);
}

}  // namespace simdex
