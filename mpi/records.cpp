#include "mpi/records.h"

#include <algorithm>
#include <bit>
#include <iterator>

#include "simdex/error.h"

namespace simdex::mpi {

static_assert(std::endian::native == std::endian::little, "IdList reads little-endian ids in place");

namespace {
constexpr std::size_t kHead = 5;  // key1, key2, distance, ids1 count, ids2 count
}  // namespace

void append_record(std::vector<uint64_t>& out, uint64_t key1, uint64_t key2, unsigned distance,
                   const IdList& ids1, const IdList& ids2) {
  out.insert(out.end(), {key1, key2, distance, ids1.size(), ids2.size()});
  for (uint64_t id : ids1) out.push_back(id);
  for (uint64_t id : ids2) out.push_back(id);
}

void append_record(std::vector<uint64_t>& out, const Record& r) {
  out.insert(out.end(), {r.key1, r.key2, r.distance, r.ids1.size(), r.ids2.size()});
  out.insert(out.end(), r.ids1.begin(), r.ids1.end());
  out.insert(out.end(), r.ids2.begin(), r.ids2.end());
}

void for_each_record(std::span<const uint64_t> words, const std::function<void(const Record&)>& visit) {
  for (std::size_t at = 0; at < words.size();) {
    if (words.size() - at < kHead) throw Error(errc::io, "a result record from another rank is cut short");
    const uint64_t n1 = words[at + 3], n2 = words[at + 4];
    if (n1 > words.size() - at - kHead || n2 > words.size() - at - kHead - n1)
      throw Error(errc::io, "a result record from another rank is cut short");
    Record r{words[at], words[at + 1], static_cast<unsigned>(words[at + 2]), words.subspan(at + kHead, n1),
             words.subspan(at + kHead + n1, n2)};
    visit(r);
    at += kHead + n1 + n2;
  }
}

int home_rank(uint64_t key1, uint64_t key2, int ranks) {
  uint64_t h = key1 * 0x9e3779b97f4a7c15ULL ^ (key2 + 0x632be59bd9b4e019ULL);
  h ^= h >> 31;
  h *= 0xbf58476d1ce4e5b9ULL;
  h ^= h >> 29;
  return static_cast<int>(h % static_cast<uint64_t>(ranks));
}

std::vector<uint64_t> merge_records(std::span<const uint64_t> words) {
  std::vector<Record> records;
  for_each_record(words, [&](const Record& r) { records.push_back(r); });
  std::stable_sort(records.begin(), records.end(), [](const Record& x, const Record& y) {
    return x.key1 != y.key1 ? x.key1 < y.key1 : x.key2 < y.key2;
  });
  std::vector<uint64_t> out, ids1, ids2, united;
  auto unite = [&](std::vector<uint64_t>& into, std::span<const uint64_t> more) {
    united.clear();
    std::set_union(into.begin(), into.end(), more.begin(), more.end(), std::back_inserter(united));
    into.swap(united);
  };
  for (std::size_t i = 0; i < records.size();) {
    std::size_t j = i + 1;
    while (j < records.size() && records[j].key1 == records[i].key1 && records[j].key2 == records[i].key2)
      ++j;
    if (j == i + 1) {
      append_record(out, records[i]);
    } else {
      ids1.assign(records[i].ids1.begin(), records[i].ids1.end());
      ids2.assign(records[i].ids2.begin(), records[i].ids2.end());
      for (std::size_t m = i + 1; m < j; ++m) {
        unite(ids1, records[m].ids1);
        unite(ids2, records[m].ids2);
      }
      append_record(out, {records[i].key1, records[i].key2, records[i].distance, ids1, ids2});
    }
    i = j;
  }
  return out;
}

IdList id_view(std::span<const uint64_t> ids) {
  return IdList(reinterpret_cast<const uint8_t*>(ids.data()), ids.size());
}

}  // namespace simdex::mpi
