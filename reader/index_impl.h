// What an open Index holds: the mapping (when it owns one) and the validated view of its bytes.
#pragma once

#include <memory>
#include <optional>

#include "reader/index_file.h"
#include "reader/mapped_file.h"
#include "simdex/index.h"

namespace simdex {

struct Index::Impl {
  std::unique_ptr<reader::MappedFile> mapping;  // null for from_buffer
  reader::IndexFile file;
};

const Index::Impl& index_impl(const Index& index);

// For the duration of a scan over every block: sequential read-ahead, then random access again.
class SequentialScan {
 public:
  explicit SequentialScan(const Index::Impl& impl) : mapping_(impl.mapping.get()) {
    if (mapping_) mapping_->advise(reader::MappedFile::Access::sequential);
  }
  ~SequentialScan() {
    if (mapping_) mapping_->advise(reader::MappedFile::Access::random);
  }
  SequentialScan(const SequentialScan&) = delete;
  SequentialScan& operator=(const SequentialScan&) = delete;

 private:
  const reader::MappedFile* mapping_;
};

}  // namespace simdex
