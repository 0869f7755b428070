#!/usr/bin/env python3
"""The ```sh blocks of README.md, and a check that they name only what exists.

  readme_blocks.py extract README OUT_DIR    writes OUT_DIR/01.sh, 02.sh, ... (scripts/check-readme)
  readme_blocks.py check README SOURCE_DIR BUILD_DIR
      fast (ctest readme_commands): every command a block runs is a file of the repository, a file
      of the build (build/... is looked up in BUILD_DIR) or a program on PATH, and every path
      argument exists, or is made by an earlier command (-o PATH, --report PATH, --index PATH, > PATH,
      python3 -m venv DIR, `simdex add SET`) or by scripts/demo.
"""
import os
import re
import shlex
import shutil
import sys

SHELL_WORDS = {"cd", "export", "echo", "set", "true", "test", "[", "for", "do", "done", "if", "then", "fi"}
FILE_SUFFIXES = r"\.(gz|zst|sdx|tsv|jsonl|json|fp|txt|md|py|seomoz)$"
PATH_PREFIXES = ("scripts/", "./scripts/", "data/", "build/", "spec/", "tests/", "bench/", "out/", "include/")


def looks_like_path(word):
    if word.startswith("-") or "$" in word or "{" in word:
        return False
    return word.startswith(PATH_PREFIXES) or "/" in word or re.search(FILE_SUFFIXES, word) is not None


def blocks(readme):
    found, current = [], None
    for line in open(readme, encoding="utf-8"):
        if current is None and line.strip() == "```sh":
            current = []
        elif current is not None and line.strip() == "```":
            found.append("".join(current))
            current = None
        elif current is not None:
            current.append(line)
    return found


def commands(block):
    """Each simple command of a block as a list of words (comments dropped, pipes and ; split)."""
    for line in block.splitlines():
        try:
            words = shlex.split(line, comments=True)
        except ValueError as e:
            yield ["<unparsable: %s>" % e]
            continue
        command = []
        for word in words:
            if word in ("|", ";", "&&", "||"):
                if command:
                    yield command
                command = []
            else:
                command.append(word)
        if command:
            yield command


def split_redirections(command):
    """words, outputs: `> out/x` and `>out/x` become outputs."""
    words, outputs, i = [], [], 0
    while i < len(command):
        w = command[i]
        if w in (">", ">>", "2>"):
            if i + 1 < len(command):
                outputs.append(command[i + 1])
            i += 2
            continue
        m = re.match(r"^(?:2)?>>?(.+)$", w)
        if m:
            outputs.append(m.group(1))
        else:
            words.append(w)
        i += 1
    return words, outputs


def check(readme, source_dir, build_dir):
    made = set(re.findall(r"\bout/[\w.-]+", open(os.path.join(source_dir, "scripts/demo")).read()))
    made_dirs = set()  # directories an earlier command makes (python3 -m venv DIR): their files too
    problems = []
    all_blocks = blocks(readme)
    if not all_blocks:
        problems.append("no ```sh block in %s" % readme)

    def exists(path):
        path = path.rstrip("/")
        if path.startswith("./"):
            path = path[2:]
        if path.startswith("build/"):
            return os.path.exists(os.path.join(build_dir, path[len("build/"):]))
        return (os.path.exists(os.path.join(source_dir, path)) or path in made
                or any(path.startswith(m.rstrip("/") + "/") for m in made_dirs))

    for n, block in enumerate(all_blocks, 1):
        for command in commands(block):
            words, outputs = split_redirections(command)
            while words and re.match(r"^[A-Za-z_][A-Za-z0-9_]*=", words[0]):  # VAR=value prefix
                words = words[1:]
            if not words:
                continue
            program = words[0]
            if "/" in program:
                if not exists(program):
                    problems.append("block %d: %s: no such file" % (n, program))
            elif program not in SHELL_WORDS and shutil.which(program) is None:
                problems.append("block %d: %s: not a command on PATH (use build/cli/simdex)" % (n, program))
            for i, word in enumerate(words[1:], 1):
                if words[i - 1] == "add" and program.endswith("simdex"):  # `simdex add SET`: creates SET
                    made.add(word)
                elif words[i - 1] in ("-o", "--output", "--report", "--index"):  # options naming a file made
                    made.add(word)
                elif looks_like_path(word) and not exists(word):
                    problems.append("block %d: %s: no such file (and no earlier command makes it)" % (n, word))
            made.update(outputs)
            if words[1:3] == ["-m", "venv"]:
                made_dirs.update(w for w in words[3:] if not w.startswith("-"))
    return problems


def main():
    if len(sys.argv) == 4 and sys.argv[1] == "extract":
        os.makedirs(sys.argv[3], exist_ok=True)
        for n, block in enumerate(blocks(sys.argv[2]), 1):
            with open(os.path.join(sys.argv[3], "%02d.sh" % n), "w") as f:
                f.write(block)
        return 0
    if len(sys.argv) == 5 and sys.argv[1] == "check":
        problems = check(*sys.argv[2:])
        for p in problems:
            print("README: " + p)
        if not problems:
            print("README: %d blocks, every command and file exists" % len(blocks(sys.argv[2])))
        return 1 if problems else 0
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())
