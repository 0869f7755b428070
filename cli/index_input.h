// The INDEX argument of the commands that read an index: a path (mapped by Index::open), or "-" for
// standard input. A pipe cannot be mapped, so its bytes are read whole into memory and read in place
// by Index::from_buffer; a regular file redirected to stdin (`< docs.sdx`) is mapped as any file.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "simdex/index.h"

namespace simdex::cli {

class IndexInput {
 public:
  // Throws simdex::Error as Index::open does (errc::io when stdin cannot be read).
  explicit IndexInput(const std::string& path, const OpenOptions& options = {});
  // An index opened some other way (Index::reopen).
  explicit IndexInput(Index index) : index_(std::move(index)) {}
  IndexInput(const IndexInput&) = delete;
  IndexInput& operator=(const IndexInput&) = delete;

  const Index& operator*() const { return *index_; }
  const Index* operator->() const { return &*index_; }
  bool from_stdin() const { return from_stdin_; }

 private:
  std::vector<uint8_t> bytes_;  // a piped index, which index_ reads in place
  std::optional<Index> index_;
  bool from_stdin_ = false;
};

// "-" for the index and for another input of the same command cannot both be stdin: Error(usage),
// saying what to do `instead`.
void refuse_two_stdin_inputs(const std::string& index, const std::string& other, const std::string& what,
                             const std::string& instead);

}  // namespace simdex::cli
