def split(diff):
    hunk = []
    for line in diff.splitlines():
        if line.startswith("@@") and hunk:
            yield hunk
            hunk = []
        hunk.append(line)
    if hunk:
        yield hunk
