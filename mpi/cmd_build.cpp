// simdex-mpi build: every rank reads its share of the input (input_shares.h) and writes one member of
// a new index set; rank 0 publishes the manifest once every member is written. Ids follow the rules
// of `simdex build` over the whole input: without ids a line's id is its global 0-based line number.
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <memory>
#include <optional>

#include "cli/keys_option.h"
#include "cli/lines.h"
#include "cli/output.h"
#include "cli/progress.h"
#include "cli/table_options.h"
#include "cli/threads_option.h"
#include "format/set_manifest.h"
#include "mpi/commands.h"
#include "mpi/input_shares.h"
#include "mpi/world.h"
#include "reader/index_impl.h"
#include "set/set_files.h"
#include "simdex/builder.h"
#include "simdex/error.h"
#include "writer/atomic_file.h"

namespace simdex::mpi {

namespace {
struct BuildArgs : cli::TableArgs {
  std::string output;
  std::vector<std::string> inputs;
  unsigned threads = 0;
  std::string memory, tmp_dir;
  bool quiet = false;
};

// This rank's member file: removed unless the manifest naming it was published.
struct MemberFile {
  std::string path;
  bool keep = false;
  ~MemberFile() {
    if (!path.empty() && !keep) ::unlink(path.c_str());
  }
};

// Rank 0's lock on the set, from the check that the set is new until it is published. A job that
// fails before publishing a set that was new leaves no SET.lock behind (nor does `simdex add`).
struct BuildLock {
  std::optional<set::SetLock> lock;
  bool published = false;
  ~BuildLock() {
    if (lock && !published) lock->remove_if_created();
  }
};

void run_build(const BuildArgs& a) {
  const auto start = std::chrono::steady_clock::now();
  const World world;
  const auto ranks = static_cast<std::size_t>(world.size());
  BuildLock lock;
  std::vector<Piece> pieces;
  BuildOptions options;
  uint64_t base = 0;      // the generation of the set replaced (0: a new set)
  std::string old_names;  // its files, one a line: removed once the new manifest is published
  world.step([&] {
    cli::apply_table_options(a, options);
    options.threads = a.threads ? a.threads : world.default_threads();
    options.memory_bytes = a.memory.empty() ? default_memory_bytes() / world.local_ranks()
                                            : cli::parse_size(a.memory, "--memory");
    options.temp_dir = cli::temp_dir_for(a.tmp_dir, a.output);
    writer::require_target_directory(a.output);
    std::error_code ec;
    if (world.root()) {
      set::checked_set_path(a.output);
      lock.lock.emplace(a.output, false);
      if (std::filesystem::exists(a.output, ec)) {  // replaced: the new generations follow the old
        if (!set::starts_with_set_magic(a.output))
          throw Error(errc::usage, "'" + a.output + "' exists and is not an index set manifest");
        const std::vector<uint8_t> bytes = set::read_manifest(a.output);
        const format::SetManifest old = format::SetManifest::decode(bytes.data(), bytes.size());
        base = old.generation;
        if (base > UINT64_MAX - ranks)
          throw Error(errc::usage, "the set '" + a.output + "' is at generation " + std::to_string(base) +
                                       ": too near 2^64 - 1 for a member per rank");
        for (const auto* list : {&old.members, &old.tombstones})
          for (const auto& e : *list) old_names += e.name + "\n";
      }
    }
    pieces = cut_input(a.inputs, world.size());
  });
  std::vector<uint64_t> base_word{base};
  world.broadcast(base_word, 0);
  base = base_word[0];
  world.broadcast(old_names, 0);

  // The first data line of the whole input decides whether lines hold ids (as `simdex build`).
  std::vector<uint64_t> forms(pieces.size(), 0);  // form + 2 (0: not this rank's piece)
  world.step([&] {
    for (std::size_t p = 0; p < pieces.size(); ++p)
      if (pieces[p].rank == world.rank())
        forms[p] = static_cast<uint64_t>(first_line_form(a.inputs[pieces[p].file], pieces[p]) + 2);
  });
  std::vector<uint64_t> all_forms = world.all_gather(forms);
  int with_ids = -1;
  for (std::size_t p = 0; p < pieces.size() && with_ids < 0; ++p)
    for (std::size_t r = 0; r < ranks; ++r)
      if (const uint64_t f = all_forms[r * pieces.size() + p]; f != 0 && f != 1)
        with_ids = static_cast<int>(f) - 2;

  // The lines before each piece: ids without ids in the lines, and the line numbers of messages for
  // the byte ranges of one file (whole files with ids are numbered each from its start).
  std::vector<uint64_t> lines_before(pieces.size(), 0), lines_before_in_file(pieces.size(), 0);
  if (with_ids == 0 || (!pieces.empty() && !pieces[0].whole)) {
    std::vector<uint64_t> counts(pieces.size(), 0);
    world.step([&] {
      for (std::size_t p = 0; p < pieces.size(); ++p)
        if (pieces[p].rank == world.rank()) counts[p] = count_lines(a.inputs[pieces[p].file], pieces[p]);
    });
    const std::vector<uint64_t> all_counts = world.all_gather(counts);
    uint64_t before = 0;
    std::vector<uint64_t> in_file(a.inputs.size(), 0);
    for (std::size_t p = 0; p < pieces.size(); ++p) {
      lines_before[p] = before;
      lines_before_in_file[p] = in_file[pieces[p].file];
      for (std::size_t r = 0; r < ranks; ++r) {
        before += all_counts[r * pieces.size() + p];
        in_file[pieces[p].file] += all_counts[r * pieces.size() + p];
      }
    }
  }

  // Made in the step: its checks (a --tmp-dir missing on one machine) fail on some ranks only, and
  // a rank that threw outside a step left the others waiting in the next collective for ever.
  std::optional<IndexBuilder> builder;
  world.step([&] {
    builder.emplace(options);
    for (std::size_t p = 0; p < pieces.size(); ++p) {
      if (pieces[p].rank != world.rank()) continue;
      const std::string& path = a.inputs[pieces[p].file];
      cli::PairReader reader(path, lines_before[p],
                             with_ids < 0 ? std::nullopt : std::optional<bool>(with_ids == 1),
                             lines_before_in_file[p]);
      for_each_line(path, pieces[p], [&](std::string_view line) {
        if (auto pair = reader.parse(line)) builder->add(pair->first, pair->second);
      });
    }
  });

  // A member per rank, empty where the rank read no pairs, numbered in rank order: generations
  // base+1..base+P, so that member i is rank i's (what `--assign index` relies on when members lie
  // on each machine's disk), and the manifest's generation base+P (a reader of the replaced set that
  // reopens it sees a newer generation, never a stale one).
  const uint64_t members = ranks, generation = base + static_cast<uint64_t>(world.rank()) + 1;
  MemberFile file;
  std::vector<uint64_t> entry(6, 0);  // generation, file_bytes, header_checksum, count, id_count, k | B << 8
  world.step([&] {
    const std::string name = set::member_name(a.output, generation);
    file.path = set::entry_path(a.output, name);
    // Written under its pending name (IndexBuilder::write refuses the name of an existing set's
    // entry: only the set's writers give it), then renamed to its name, replacing what a job killed
    // before publishing left there.
    const std::string pending = set::pending_entry_path(a.output, name);
    builder->write(pending);
    if (::rename(pending.c_str(), file.path.c_str()) != 0) {
      const int err = errno;
      ::unlink(pending.c_str());
      throw Error(errc::io, "cannot rename '" + pending + "' to '" + file.path + "': " + std::strerror(err),
                  err);
    }
    writer::fsync_directory(set::set_directory(a.output));
    OpenOptions plain;
    plain.detect_changes = false;
    const auto impl = reader::open_file(file.path, plain);
    const auto& h = impl->file.header();
    entry = {generation,          h.file_bytes, h.header_checksum,
             h.fingerprint_count, h.id_count,   h.max_distance | uint64_t{h.block_bytes} << 8};
  });
  const std::vector<uint64_t> entries = world.all_gather(entry);
  uint64_t fingerprints = 0, ids = 0, bytes = 0;
  world.step([&] {
    if (!world.root()) return;
    format::SetManifest m;
    for (std::size_t r = 0; r < ranks; ++r) {
      const uint64_t* e = &entries[r * 6];
      if (e[0] == 0) continue;
      m.members.push_back({e[0], e[1], e[2], e[3], e[4], set::member_name(a.output, e[0])});
      m.max_distance = static_cast<uint8_t>(e[5] & 0xff);
      m.block_bytes = static_cast<uint32_t>(e[5] >> 8);
      fingerprints += e[3];
      ids += e[4];
      bytes += e[1];
    }
    std::sort(m.members.begin(), m.members.end(),
              [](const auto& x, const auto& y) { return x.generation < y.generation; });
    m.generation = m.members.back().generation;
    // The inputs' key maps (written beside them by `simdex fingerprint`), united and checked before
    // the manifest is published, put beside it after (as `simdex build` carries one).
    PendingKeyMap keys = PendingKeyMap::removal(key_map_path(a.output));
    std::vector<cli::NamedKeyMap> named;
    std::error_code ec;
    for (const std::string& input : a.inputs)
      if (std::filesystem::exists(key_map_path(input), ec)) named.push_back({key_map_path(input), input});
    if (!named.empty())
      keys = PendingKeyMap::written(key_map_path(a.output), [&](const PendingKeyMap::Sink& sink) {
        cli::unite_key_maps(named, sink, "nothing is written");
      });
    const std::vector<uint8_t> manifest = m.encode();
    writer::AtomicFile out(a.output);
    out.write(manifest.data(), manifest.size());
    out.publish();
    lock.published = true;
    keys.commit();
  });
  file.keep = true;
  // The replaced set's files, on every machine that has them (readers that hold them keep them).
  for (std::size_t at = 0, nl; (nl = old_names.find('\n', at)) != std::string::npos; at = nl + 1)
    ::unlink(set::entry_path(a.output, old_names.substr(at, nl - at)).c_str());
  if (world.root() && !a.quiet) {
    std::cerr << "simdex-mpi: wrote " << a.output << ": " << members << " members on " << world.size()
              << " ranks, " << fingerprints << " fingerprints and " << ids
              << " ids over the members (a fingerprint in several members counts in each), " << bytes
              << " bytes of members in " << cli::elapsed_text(start) << "\n";
  }
}
}  // namespace

void add_build_command(CLI::App& app) {
  auto args = std::make_shared<BuildArgs>();
  auto* cmd = app.add_subcommand("build", "Build an index set, one member per rank (simdex build)");
  cmd->footer(
      "INPUT lines are those of `simdex build` (FINGERPRINT or FINGERPRINT<TAB>ID, all lines alike;\n"
      "without ids a line's id is its 0-based line number, counted over all inputs in order). One plain\n"
      "file is cut into P byte ranges at line boundaries, one per rank; several files, or a .gz/.zst one\n"
      "(never split), are spread whole over the ranks by size. Each rank writes one member (empty when\n"
      "it read no pairs), SET-GGGGGGGGGGGGGGGG.sdx, in SET's directory on its own machine, rank r the\n"
      "set's member r (what `--assign index` expects); rank 0 publishes the\n"
      "manifest SET (spec/SET.md) once every member is written. The set answers exactly as the one\n"
      "index `simdex build` makes of the whole input. An existing SET is replaced\n"
      "(new generations, then its files removed); grow a set instead with `simdex add`.\n"
      "A rank that fails (a malformed line, an unreadable input) stops the job, naming the rank and the\n"
      "file: no manifest is published and the members written are removed.\n"
      "Inputs must be readable at their path by the ranks that read them (a shared file system, or the\n"
      "same files on every machine). For members on each machine's local disk, see docs/SCALE.md.\n\n"
      "Example: mpirun -np 4 simdex-mpi build -o /data/docs.sdxs fingerprints.tsv");
  cmd->add_option("-o,--output", args->output, "The set's manifest to write (e.g. docs.sdxs)")->required();
  cmd->add_option("input", args->inputs, "Input files")->required();
  cli::add_table_options(*cmd, *args, cli::TablesOf::index, "Table scheme (see `simdex build --help`)");
  cli::add_threads_option(*cmd, args->threads, "Threads per rank (0: the machine's cores / its ranks)");
  cmd->add_option("--memory", args->memory,
                  "Memory bound per rank, e.g. 2G (default: a quarter of physical memory / its ranks)");
  cmd->add_option("--tmp-dir", args->tmp_dir,
                  "Directory for the sort's temporary files (default: SET's directory)");
  cmd->add_flag("-q,--quiet", args->quiet, "No summary");
  cmd->callback([args] { run_build(*args); });
}

}  // namespace simdex::mpi
