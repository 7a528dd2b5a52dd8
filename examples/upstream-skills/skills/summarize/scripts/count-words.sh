#!/bin/sh
# Prints the number of words in each file given.
for f in "$@"; do
  printf '%s %s\n' "$(wc -w < "$f")" "$f"
done
