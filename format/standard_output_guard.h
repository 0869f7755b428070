// A command that prints its results to standard output must not read the file that standard output
// is: `simdex dedup IN -o - >> IN` reads what it writes without end, `query IDX FP >> IDX` appends to
// the index it maps, `> IN` has emptied the input before the run began. Every reader of an input
// (an index and a set's files, key maps, documents, query and fingerprint lines, stopwords) asks
// check_not_standard_output() once it has the file open. The CLI turns the check on; a library
// caller's standard output is its own business, so it is off by default.
#pragma once

#include <sys/stat.h>

#include <string>

namespace simdex::format {

void refuse_reading_standard_output(bool on);

// Whether `fd` is the regular file that standard output is (another descriptor of it: `fd` 1
// itself, a process that closed its standard output and got 1 back from open(), is not).
bool is_standard_output(int fd);
// Whether `st` (a stat of some file) is of the regular file that standard output writes.
bool is_standard_output(const struct stat& st);

// Error(usage) naming `name` when the check is on and is_standard_output(fd); `fd` closed first
// with CloseOnRefusal::yes (a caller that owns it has nothing else to do).
enum class CloseOnRefusal { no, yes };
void check_not_standard_output(int fd, const std::string& name, CloseOnRefusal close = CloseOnRefusal::no);

// The message of that error (also writer::refuse_input_as_output's, for an output "-").
std::string standard_output_is_input(const std::string& name);

}  // namespace simdex::format
