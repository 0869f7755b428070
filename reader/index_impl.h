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

}  // namespace simdex
