# cmake -DSIMDEX=path/to/simdex -DVERSION=x.y.z -DOUT_DIR=dir -P cli_help.cmake
# Writes OUT_DIR/simdex-help.txt (simdex --help and each command's --help), OUT_DIR/simdex.1, a man
# page holding the same text, so the installed documentation is the command's own, and
# OUT_DIR/simdex.bash-completion. The commands are those `simdex help --commands` lists: all of them.
execute_process(COMMAND ${SIMDEX} help --commands OUTPUT_VARIABLE commands RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "${SIMDEX} help --commands failed (${rc})")
endif()
string(STRIP "${commands}" commands)
string(REPLACE "\n" ";" commands "${commands}")
execute_process(COMMAND ${SIMDEX} help --bash-completion OUTPUT_FILE ${OUT_DIR}/simdex.bash-completion RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "${SIMDEX} help --bash-completion failed (${rc})")
endif()
execute_process(COMMAND ${SIMDEX} --help OUTPUT_VARIABLE text RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "${SIMDEX} --help failed (${rc})")
endif()
foreach(command IN LISTS commands)
  execute_process(COMMAND ${SIMDEX} ${command} --help OUTPUT_VARIABLE help RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${SIMDEX} ${command} --help failed (${rc})")
  endif()
  string(APPEND text "\n== simdex ${command} ==\n${help}")
endforeach()
file(WRITE ${OUT_DIR}/simdex-help.txt "${text}")

# roff: backslashes escaped, lines starting with . or ' protected, the text kept as it is (.nf).
string(REPLACE "\\" "\\e" roff "${text}")
string(REGEX REPLACE "(^|\n)([.'])" "\\1\\\\&\\2" roff "${roff}")
file(WRITE ${OUT_DIR}/simdex.1
".TH SIMDEX 1 \"\" \"simdex ${VERSION}\" \"User Commands\"
.SH NAME
simdex \\- near-duplicate detection over 64-bit simhash fingerprints
.SH SYNOPSIS
.B simdex
.I command
[options]
.SH DESCRIPTION
Every command and option, as
.B simdex --help
and
.B simdex
.I command
.B --help
print them. The index file format is specified in /usr/share/doc/simdex/spec/FORMAT.md.
.PP
.nf
${roff}.fi
.SH EXIT STATUS
0 success; 1 failure (malformed input, unreadable or corrupt index, verify found problems);
2 usage error.
.SH SEE ALSO
/usr/share/doc/simdex/README.md
")
