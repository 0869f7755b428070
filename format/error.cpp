#include "simdex/error.h"

namespace simdex {

std::string_view errc_name(errc code) {
  switch (code) {
    case errc::io:
      return "io";
    case errc::usage:
      return "usage";
    case errc::input:
      return "input";
    case errc::file_too_small:
      return "file_too_small";
    case errc::bad_magic:
      return "bad_magic";
    case errc::unsupported_version:
      return "unsupported_version";
    case errc::header_checksum:
      return "header_checksum";
    case errc::reserved_nonzero:
      return "reserved_nonzero";
    case errc::bad_header_field:
      return "bad_header_field";
    case errc::file_size_mismatch:
      return "file_size_mismatch";
    case errc::section_layout:
      return "section_layout";
    case errc::section_checksum:
      return "section_checksum";
    case errc::bad_permutation:
      return "bad_permutation";
    case errc::bad_code_lengths:
      return "bad_code_lengths";
    case errc::block_checksum:
      return "block_checksum";
    case errc::bad_block:
      return "bad_block";
    case errc::keys_order:
      return "keys_order";
    case errc::block_ranks:
      return "block_ranks";
    case errc::bad_ids:
      return "bad_ids";
    case errc::table_mismatch:
      return "table_mismatch";
    case errc::file_changed:
      return "file_changed";
    case errc::coverage:
      return "coverage";
    case errc::work_limit:
      return "work_limit";
    case errc::manifest_checksum:
      return "manifest_checksum";
    case errc::set_layout:
      return "set_layout";
    case errc::bad_member_name:
      return "bad_member_name";
    case errc::entry_order:
      return "entry_order";
    case errc::member_missing:
      return "member_missing";
    case errc::member_mismatch:
      return "member_mismatch";
    case errc::bad_tombstone:
      return "bad_tombstone";
    case errc::stale_manifest:
      return "stale_manifest";
    case errc::tag_order:
      return "tag_order";
    case errc::unknown_critical_section:
      return "unknown_critical_section";
    case errc::bad_tagged_section:
      return "bad_tagged_section";
    case errc::settings_mismatch:
      return "settings_mismatch";
  }
  return "unknown";
}

}  // namespace simdex
