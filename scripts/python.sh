#!/usr/bin/env bash
# The Python 3.11 the virtualenv is made from: the operating system's own build when it has one
# with venv (Debian's and Ubuntu's python3.11 is built with profile-guided and link-time
# optimisation into one static executable; a build without them — pyenv's default, a shared
# libpython — runs kubus's Python processes ~12% slower, docs/benchmarks.md), else python3.
for candidate in /usr/bin/python3.11 python3; do
  if command -v "$candidate" >/dev/null 2>&1 &&
     "$candidate" -c 'import sys, venv, ensurepip; sys.exit(sys.version_info[:2] != (3, 11))' 2>/dev/null; then
    echo "$candidate"
    exit 0
  fi
done
echo python3
