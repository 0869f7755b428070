// simdex::upgrade_index: a 1.x, 2.0 or 2.1 file as 2.2 (spec/FORMAT.md §12): the version, and the
// writer's BLOCK_DIRECTORY made from the keys when the file has none or one of other d_t. Here,
// above reader/ and writer/, because it verifies with the one and publishes with the other.
#include <algorithm>
#include <filesystem>

#include "format/block_directory.h"
#include "format/checksum.h"
#include "format/header_region.h"
#include "format/tagged_sections.h"
#include "reader/index_impl.h"
#include "simdex/builder.h"
#include "writer/atomic_file.h"

namespace simdex {

namespace {

// BLOCK_DIRECTORY of `file`, as the writer writes it, in pieces to `write`.
void encode_directory(const reader::IndexFile& file,
                      const std::function<void(std::span<const uint8_t>)>& write) {
  std::vector<uint64_t> block_counts;
  for (const reader::TableView& t : file.tables()) block_counts.push_back(t.block_count());
  format::encode_block_directory(
      block_counts, [&](uint32_t t, uint64_t j) { return file.tables()[t].key(j); }, write);
}

}  // namespace

UpgradeSummary upgrade_index(const std::string& input, const std::string& output) {
  const Index index = Index::open(input);
  if (index.is_set())
    throw Error(errc::usage, "'" + input + "' is an index set: `simdex merge " + input +
                                 "` rewrites its members as one member of the current format");
  const reader::IndexFile& file = index_impl(index).file;
  UpgradeSummary summary;
  summary.from_major = file.header().version_major;
  summary.from_minor = file.header().version_minor;
  summary.file_bytes = file.size();
  const auto directory_tag = static_cast<uint32_t>(format::Tag::block_directory);
  const bool has_directory = file.tagged_section(directory_tag).has_value();
  const bool current = summary.from_major == format::kVersionMajor &&
                       summary.from_minor >= format::kVersionMinor && has_directory;
  // Kept when the file is current or its d_t are the writer's; else (none, or a 2.1 file's finer
  // slots) made anew.
  const bool writers_directory =
      has_directory && (current || std::ranges::all_of(file.tables(), [](const reader::TableView& t) {
                          return t.directory_bits == format::directory_bits_for(t.block_count());
                        }));
  std::error_code ec;
  const bool in_place = std::filesystem::equivalent(input, output, ec);
  if (current && in_place) return summary;
  writer::refuse_replacing_set(output);  // in place too: a set's member is never rewritten
  // Checked before the file is read: the sections it keeps (all but an old directory) and the one it adds.
  const std::size_t kept_tagged = file.tagged_sections().size() - has_directory;
  if (!writers_directory && kept_tagged >= format::kMaxTaggedSections)
    throw Error(errc::usage, "'" + input + "' has " + std::to_string(kept_tagged) +
                                 " tagged sections besides a block directory, and format " +
                                 std::to_string(format::kVersionMajor) + "." +
                                 std::to_string(format::kVersionMinor) + " allows " +
                                 std::to_string(format::kMaxTaggedSections) +
                                 " with it: it cannot be upgraded; rebuild it from its input");

  const VerifyReport report = index.verify();
  if (!report.ok()) {
    const Problem& p = report.problems.front();
    throw Error(p.code, "'" + input + "' fails verification (" + p.where + ": " + p.what +
                            "); it is not upgraded: rebuild it from its input");
  }
  // The new header region: the same header, tables and sections, and the file's tagged sections
  // with the writer's BLOCK_DIRECTORY in tag order. A directory entry added moves every section by
  // 32 bytes; the sections' bytes and checksums stay.
  format::HeaderRegion region = format::HeaderRegion::decode_from(file.data(), file.size());
  const uint64_t old_region_bytes = region.encoded_bytes();
  if (region.header.version_major < format::kVersionMajor) region.header.version_minor = 0;
  region.header.version_major = format::kVersionMajor;
  region.header.version_minor = std::max(region.header.version_minor, format::kVersionMinor);
  if (!writers_directory) {
    std::erase_if(region.tagged, [&](const auto& e) { return e.tag == directory_tag; });
    format::Checksum64 hash;
    format::TaggedSectionEntry entry{directory_tag, 0, 0, 0, 0};
    encode_directory(file, [&](std::span<const uint8_t> b) {
      hash.update(b.data(), b.size());
      entry.bytes += b.size();
    });
    entry.checksum = hash.digest();
    region.tagged.push_back(entry);
    std::sort(region.tagged.begin(), region.tagged.end(),
              [](const auto& a, const auto& b) { return a.tag < b.tag; });
  }
  const uint64_t shift = region.encoded_bytes() - old_region_bytes;
  const uint64_t sections_end = region.sections.back().offset + region.sections.back().bytes;  // IDS's end
  std::vector<uint64_t> old_offsets;  // of the tagged sections, in the new order (0: the new directory)
  uint64_t at = sections_end + shift;
  for (auto& s : region.sections) s.offset += shift;
  for (auto& e : region.tagged) {
    old_offsets.push_back(e.tag == directory_tag && !writers_directory ? 0 : e.offset);
    e.offset = at;
    at += e.bytes;
  }
  region.header.file_bytes = at;
  std::vector<uint8_t> head(region.encoded_bytes());
  region.encode_to(head.data());
  (void)format::HeaderRegion::decode_from(head.data(), at);  // reads [0, R) only: the open rules

  writer::AtomicFile out(output);
  constexpr std::size_t kChunk = std::size_t{1} << 20;
  auto copy = [&](uint64_t from, uint64_t bytes) {
    for (uint64_t done = 0; done < bytes; done += kChunk)
      out.write(file.data() + from + done, std::min<uint64_t>(kChunk, bytes - done));
  };
  out.write(head.data(), head.size());
  copy(old_region_bytes, sections_end - old_region_bytes);
  for (std::size_t i = 0; i < region.tagged.size(); ++i) {
    if (region.tagged[i].tag == directory_tag && !writers_directory)
      encode_directory(file, [&](std::span<const uint8_t> b) { out.write(b.data(), b.size()); });
    else
      copy(old_offsets[i], region.tagged[i].bytes);
  }
  index.check_unchanged();  // the bytes copied are the bytes verified
  out.publish();
  summary.rewritten = !current;
  summary.file_bytes = at;
  return summary;
}

}  // namespace simdex
