// A key map (spec/KEYS.md) that belongs beside an output (an index, fingerprint lines): written in
// full (and fsynced) first, put at its path only after the output is published, so that a command that fails
// leaves the old output with its old map. (A process killed between the two renames leaves the new output
// beside the old map, whose ids are those of its keys still: ids missing from it print as numbers.)
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include "simdex/keys.h"
#include "writer/atomic_file.h"

namespace simdex {

class PendingKeyMap {
 public:
  PendingKeyMap() = default;  // nothing to publish
  using Sink = std::function<void(std::string_view bytes)>;
  // The map whose bytes `write` hands to its sink, in order, to be published at `path`.
  static PendingKeyMap written(const std::string& path, const std::function<void(const Sink&)>& write);
  // `keys`' map, to be published at `path`.
  static PendingKeyMap of(KeyMapBuilder& keys, const std::string& path);
  // The key map file `from` (checked: a malformed map is refused now), to be copied to `path`.
  static PendingKeyMap copy_of(const std::string& from, const std::string& path);
  // No map for the new output: one left at `path` by an earlier run would mislead, and is removed.
  static PendingKeyMap removal(const std::string& path);

  // Also removes `path` at commit: a map an earlier run left beside the output, which the map going
  // elsewhere (--key-map FILE) would leave stale.
  PendingKeyMap& also_remove(const std::string& path) {
    remove_ = path;
    return *this;
  }

  // The file the map is written to until commit() (complete and durable), for a caller that reads
  // it without publishing it; empty when there is no map to publish.
  std::string unpublished_path() const { return file_ ? file_->temp_path() : std::string(); }

  // Publishes the map (temporary file, fsync, rename) or removes the stale one. Dropped without
  // commit(), the map's temporary file is removed and `path` is left as it was.
  void commit();

 private:
  std::unique_ptr<writer::AtomicFile> file_;
  std::string remove_;
};

}  // namespace simdex
