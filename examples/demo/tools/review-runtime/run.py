"""Walks a diff hunk by hunk and hands each one to the reviewer."""

from lib.hunks import split


def review(diff, reviewer):
    for hunk in split(diff):
        reviewer(hunk)
