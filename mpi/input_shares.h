// The input of `simdex-mpi build` cut into pieces, one rank's share each: one plain file is split
// into P byte ranges at line boundaries (a line belongs to the range holding its first byte); many
// files, or a compressed one (.gz/.zst, told by their magic: never split), are whole pieces spread
// over the ranks by size. Pieces are in input order, so global line numbers are the sum of the lines
// of the pieces before.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace simdex::mpi {

struct Piece {
  std::size_t file = 0;  // index into the inputs
  bool whole = true;     // else the byte range [begin, end) of a plain file
  uint64_t begin = 0, end = 0;
  int rank = 0;  // the rank that reads it
};

// Every rank computes the same pieces (from the files' sizes and first bytes). Throws Error(io) for
// an input that cannot be opened.
std::vector<Piece> cut_input(const std::vector<std::string>& inputs, int ranks);

// Whether the piece's first data line holds an id (1), not (0), or it has no data line (-1).
int first_line_form(const std::string& path, const Piece& piece);
// The lines of the piece: its '\n' count, and a last line without one.
uint64_t count_lines(const std::string& path, const Piece& piece);
// Every line of the piece, in order (without its '\n').
void for_each_line(const std::string& path, const Piece& piece,
                   const std::function<void(std::string_view)>& fn);

}  // namespace simdex::mpi
