"""Review stage: a person walks porter's changes to a written port hunk by hunk, and keeps or undoes each.

Takes an output tree (its `.porter/manifest.json` names each file's original); returns a `ReviewSummary` and
leaves the tree with the reviewer's decisions applied, saved in `.porter/review.json` so a review can resume.
`review` is the `porter review` command; `review_port` is what `porter convert --review` calls.
"""

from porter.review.command import ReviewSummary, print_summary, review, review_port
from porter.review.store import ReviewError

__all__ = ["ReviewError", "ReviewSummary", "print_summary", "review", "review_port"]
