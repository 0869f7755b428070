// simdex::upgrade_index: a 1.x file as 2.0 (spec/FORMAT.md §12). Here, above reader/ and writer/,
// because it verifies with the one and publishes with the other.
#include <algorithm>
#include <filesystem>

#include "format/header_region.h"
#include "reader/index_impl.h"
#include "simdex/builder.h"
#include "writer/atomic_file.h"

namespace simdex {

UpgradeSummary upgrade_index(const std::string& input, const std::string& output) {
  const Index index = Index::open(input);
  if (index.is_set()) throw Error(errc::usage, "'" + input + "' is an index set: upgrade its member files");
  const reader::IndexFile& file = index_impl(index).file;
  UpgradeSummary summary;
  summary.from_major = file.header().version_major;
  summary.from_minor = file.header().version_minor;
  summary.file_bytes = file.size();
  std::error_code ec;
  const bool in_place = std::filesystem::equivalent(input, output, ec);
  if (summary.from_major >= format::kVersionMajor && in_place) return summary;

  const VerifyReport report = index.verify();
  if (!report.ok()) {
    const Problem& p = report.problems.front();
    throw Error(p.code, "'" + input + "' fails verification (" + p.where + ": " + p.what +
                            "); it is not upgraded: rebuild it from its input");
  }
  // The new header region: the same header, tables and sections, as 2.0 (a 1.x file has no tagged
  // sections, so R and every offset stay), decoded again before anything is written.
  format::HeaderRegion region = format::HeaderRegion::decode_from(file.data(), file.size());
  region.header.version_major = std::max(region.header.version_major, format::kVersionMajor);
  if (summary.from_major < format::kVersionMajor) region.header.version_minor = format::kVersionMinor;
  std::vector<uint8_t> head(region.encoded_bytes());
  region.encode_to(head.data());
  (void)format::HeaderRegion::decode_from(head.data(), file.size());  // reads [0, R) only: the open rules

  writer::AtomicFile out(output);
  out.write(head.data(), head.size());
  constexpr std::size_t kChunk = std::size_t{1} << 20;
  for (std::size_t at = head.size(); at < file.size(); at += kChunk)
    out.write(file.data() + at, std::min(kChunk, file.size() - at));
  index.check_unchanged();  // the bytes copied are the bytes verified
  out.publish();
  summary.rewritten = summary.from_major < format::kVersionMajor;
  return summary;
}

}  // namespace simdex
