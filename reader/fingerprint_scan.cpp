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
