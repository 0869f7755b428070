// Index::open and Index::reopen: the one door to index files (reader/) and index sets (set/), told
// apart by their magic.
#include "reader/index_impl.h"
#include "set/set_files.h"
#include "set/set_snapshot.h"

namespace simdex {

Index Index::open(const std::string& path, const OpenOptions& options) {
  // The C library would read the name only up to the NUL: another file.
  if (path.find('\0') != std::string::npos) throw Error(errc::usage, "a path holds a NUL byte");
  if (set::starts_with_set_magic(path)) return index_from_impl(set::open_set(path, options));
  if (!options.set_members.empty())
    throw Error(errc::usage, "'" + path + "' is an index file, not a set: set_members does not apply");
  auto impl = reader::open_file(path, options);
  impl->reopen_path = set::reopen_path(path);
  return index_from_impl(std::move(impl));
}

Index Index::reopen() const {
  if (impl_->composite) return impl_->composite->reopen();
  if (!impl_->mapping) throw Error(errc::usage, "an Index made by from_buffer cannot be reopened");
  return open(impl_->reopen_path.empty() ? impl_->mapping->path() : impl_->reopen_path, impl_->options);
}

}  // namespace simdex
