"""Revisions stage: ports of two git revisions of the CUDA code, compared or merged.

Takes a git work tree and two revisions. `check_port` (for `porter check --build`) ports and builds the base of
a pull request and its head, and returns a `CheckOutcome` with the problems the change introduced (build errors,
untranslated identifiers, hazards); `outputs` renders it for CI systems (step summary, pull-request comment,
workflow annotations, SARIF, GitLab code quality). `sync_port` (for `porter sync`) carries upstream changes
into an existing, hand-edited port by a three-way merge of porter's conversions of the two revisions with the port
(`git merge-file`), and returns a `SyncOutcome`. `source_revision` is what `porter convert` records in the
manifest so a port knows the commit it came from.
"""

from porter.revisions.check import CheckError, CheckRequest, check_port
from porter.revisions.command import sync
from porter.revisions.git import GitError, SourceRevision, changed_since, scope_of, source_revision
from porter.revisions.outputs import (
    CheckOutcome,
    annotations,
    gitlab_code_quality,
    link_base_from_env,
    pr_comment,
    sarif,
    step_summary,
)
from porter.revisions.problems import Problem, at_or_above, from_findings
from porter.revisions.sync import SyncError, SyncOutcome, SyncRequest, sync_port

__all__ = [
    "CheckError",
    "CheckOutcome",
    "CheckRequest",
    "GitError",
    "Problem",
    "SourceRevision",
    "SyncError",
    "SyncOutcome",
    "SyncRequest",
    "annotations",
    "at_or_above",
    "changed_since",
    "check_port",
    "from_findings",
    "gitlab_code_quality",
    "link_base_from_env",
    "pr_comment",
    "sarif",
    "scope_of",
    "source_revision",
    "step_summary",
    "sync",
    "sync_port",
]
