#include "reader/fingerprint_scan.h"

#include "reader/index_impl.h"

namespace simdex::reader {

void for_each_fingerprint(const Index& index, const std::function<void(uint64_t, const IdList&)>& visit) {
  const Index::Impl& impl = index_impl(index);
  if (impl.composite) throw Error(errc::usage, "for_each_fingerprint reads one index file, not a set");
  const SequentialScan sequential(impl);
  read_checked(impl, true, [&] {
    const IndexFile& file = impl.file;
    if (file.header().fingerprint_count == 0) return;
    const TableView& t = file.tables()[0];
    for (uint64_t j = 0; j < t.block_count(); ++j)
      file.decode(t, j, [&](uint64_t e, uint32_t i) {
        visit(t.permutation.invert(e), file.ids_at_rank(file.rank_at(t, j, i)));
        return true;
      });
  });
}

}  // namespace simdex::reader

namespace simdex::reader {

FingerprintCursor::FingerprintCursor(const Index& index) : index_(index) {
  if (index_impl(index).composite)
    throw Error(errc::usage, "a FingerprintCursor reads one index file, not a set");
  load(0);
}

void FingerprintCursor::load(uint64_t block) {
  const IndexFile& file = index_impl(index_).file;
  entries_.clear();
  pos_ = 0;
  for (block_ = block;
       entries_.empty() && file.header().fingerprint_count > 0 && block_ < file.tables()[0].block_count();
       ++block_) {
    const TableView& t = file.tables()[0];
    file.decode(t, block_, [&](uint64_t e, uint32_t i) {
      entries_.emplace_back(t.permutation.invert(e), file.rank_at(t, block_, i));
      return true;
    });
  }
}

IdList FingerprintCursor::ids() const { return index_impl(index_).file.ids_at_rank(entries_[pos_].second); }

void FingerprintCursor::next() {
  if (++pos_ == entries_.size()) load(block_);
}

bool table0_ascending(const Index& index) {
  const Index::Impl& impl = index_impl(index);
  return !impl.composite &&
         (impl.file.header().fingerprint_count == 0 || impl.file.tables()[0].permutation.is_identity());
}

}  // namespace simdex::reader
