#!/bin/sh
# Counts the words of a draft, leaving out its frontmatter.
awk 'NR == 1 && $0 == "---" { skip = 1; next } skip && $0 == "---" { skip = 0; next } !skip' "$1" | wc -w
