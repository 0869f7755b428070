// The one exception type simdex throws. Every error carries a stable code; for file-format errors the
// code is the rule's name in spec/FORMAT.md ("Reader rules"), so the conformance suite and other
// readers can compare errors, not just messages.
#pragma once

#include <stdexcept>
#include <string>
#include <string_view>

#include "simdex/export.h"

namespace simdex {

enum class errc {
  // Outside the file format.
  io,     // a file or stream could not be opened, read or written
  usage,  // an argument out of range (k above the index's k, bad block size, ...)
  input,  // a malformed input line or document
  // Reader rules of spec/FORMAT.md, in the order the spec lists them.
  file_too_small,
  bad_magic,
  unsupported_version,
  header_checksum,
  reserved_nonzero,
  bad_header_field,
  file_size_mismatch,
  section_layout,
  section_checksum,
  bad_permutation,
  bad_code_lengths,
  block_checksum,
  bad_block,
  keys_order,
  block_ranks,
  bad_ids,
  table_mismatch,
  coverage,
  // Outside the file format (appended): the file was truncated or overwritten in place while mapped.
  file_changed,
  // Outside the file format (appended): a batch command refused before it starts.
  work_limit,  // the estimated work exceeds BatchOptions::work_limit (CLI: --force goes on)
  // Reader rules of spec/SET.md (index sets) that FORMAT.md has no name for (appended).
  manifest_checksum,
  set_layout,
  bad_member_name,
  entry_order,
  member_missing,
  member_mismatch,
  bad_tombstone,
  stale_manifest,
  // Reader rules of spec/FORMAT.md 2.0's tagged sections (appended).
  tag_order,
  unknown_critical_section,
  bad_tagged_section,
  // Outside the file format (appended): a text query fingerprinted with other settings than the
  // index's texts (spec/FORMAT.md §5.2).
  settings_mismatch,
};
// The last code, for tables over every code.
inline constexpr errc kLastErrc = errc::settings_mismatch;

// The name of a code as the spec writes it, e.g. "bad_magic".
SIMDEX_EXPORT std::string_view errc_name(errc code);

class SIMDEX_EXPORT Error : public std::runtime_error {
 public:
  Error(errc code, const std::string& detail)
      : std::runtime_error(message(code, detail)), code_(code), detail_(detail) {}
  // An error caused by a system call that failed with errno `os_error` (its text is in `detail`).
  Error(errc code, const std::string& detail, int os_error) : Error(code, detail) { os_error_ = os_error; }
  errc code() const noexcept { return code_; }
  const std::string& detail() const noexcept { return detail_; }  // what() without the code's name
  // The errno of the system call that failed (ENOSPC, ENOENT, ...); 0 when none did (a bad file, a
  // bad argument) or the cause was not a system call's.
  int os_error() const noexcept { return os_error_; }

 private:
  static std::string message(errc code, const std::string& detail) {
    std::string m(errc_name(code));
    m.append(": ").append(detail);
    return m;
  }
  errc code_;
  std::string detail_;
  int os_error_ = 0;
};

}  // namespace simdex
