"""What a pull-request check hands to CI systems (pure: strings in, strings out).

Markdown for `$GITHUB_STEP_SUMMARY`, a short pull-request comment, GitHub workflow-command annotations, SARIF
2.1.0 for code scanning and GitLab's code-quality JSON, all from one `CheckOutcome`.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections import Counter
from dataclasses import dataclass, field

from porter import __version__
from porter.revisions.problems import Problem
from porter.scan import all_rules

SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
COMMENT_MARKER = "<!-- porter check -->"  # lets a workflow find and update its earlier comment
COMMENT_ITEMS = 20
_PORTER_RULES = {
    "build-error": ("HIP build error", "The port does not compile with hipcc for this target.",
                    "Fix the code (or the translation) so the HIP build passes; `porter convert` shows the errors."),
    "untranslated": ("Not translated to HIP", "porter left a CUDA identifier in the port.",
                     "Use an API with a HIP counterpart, or port the call by hand (see the reason given)."),
}


@dataclass
class TargetRun:
    """What the check did for one target (shown in the step summary)."""

    target: str
    compile_arch: str
    toolchain: str
    base_cached: bool
    units: int = 0  # translation units the change touches that the head compiled (or took from its cache)
    head_compiled: int = 0
    base_compiled: int = 0  # units the base had to compile this time (0 when all were cached)
    head_failed: list[str] = field(default_factory=list)
    note: str | None = None


@dataclass
class CheckOutcome:
    base: str  # the ref given
    base_commit: str
    head: str  # what was checked: a commit, maybe with uncommitted changes
    changed: list[str]  # repository paths changed since the base
    problems: list[Problem]  # what the change introduced
    targets: list[str]
    reproduce: str  # the command that repeats this check locally
    built: bool = False  # --build: the port was converted and built, not only scanned
    runs: list[TargetRun] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    def counts(self) -> Counter:
        return Counter(p.severity for p in self.problems)

    def kinds(self) -> Counter:
        return Counter(p.kind for p in self.problems)

    def headline(self) -> str:
        n = len(self.problems)
        what = "port and build" if self.built else "hazard scan"
        if not n:
            return f"porter check ({what}, {', '.join(self.targets)}): nothing new since {self.base}"
        sev = self.counts()
        parts = [f"{sev[s]} {s}{'s' * (sev[s] != 1)}" for s in ("error", "warning", "note") if sev[s]]
        return (f"porter check ({what}, {', '.join(self.targets)}): {n} new problem{'s' * (n != 1)} since "
                f"{self.base} ({', '.join(parts)})")

    def as_dict(self) -> dict:
        return {"base": self.base, "base_commit": self.base_commit, "head": self.head, "changed": self.changed,
                "targets": self.targets, "built": self.built, "problems": [p.as_dict() for p in self.problems],
                "summary": dict(self.counts()) | {"by_kind": dict(self.kinds())}, "reproduce": self.reproduce,
                "runs": [r.__dict__ for r in self.runs], "notes": self.notes}


def _md(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ").replace("<", "&lt;")


def link_base_from_env(env: dict[str, str] | None = None) -> str | None:
    """Where a file at the checked commit can be viewed: GitHub Actions or GitLab CI, from their variables."""
    env = dict(os.environ if env is None else env)
    if env.get("GITHUB_REPOSITORY") and env.get("GITHUB_SHA"):
        server = env.get("GITHUB_SERVER_URL", "https://github.com")
        return f"{server}/{env['GITHUB_REPOSITORY']}/blob/{env['GITHUB_SHA']}/"
    if env.get("CI_PROJECT_URL") and env.get("CI_COMMIT_SHA"):
        return f"{env['CI_PROJECT_URL']}/-/blob/{env['CI_COMMIT_SHA']}/"
    return None


def _located(p: Problem, link_base: str | None) -> str:
    where = p.location()
    if link_base and p.file and not p.file.startswith("/"):
        anchor = f"#L{p.line}" if p.line else ""
        return f"[`{where}`]({link_base}{p.file}{anchor})"
    return f"`{where}`"


def _problem_line(p: Problem, link_base: str | None) -> str:
    targets = f" ({', '.join(p.targets)})" if p.targets else ""
    fix = f" Fix: {p.fix}" if p.fix else ""
    return f"- {_located(p, link_base)} **{p.severity}** {p.title}{targets}: {_md(p.message)}{_md(fix)}"


def step_summary(outcome: CheckOutcome, link_base: str | None = None) -> str:
    """The job summary: what was checked and built, every new problem, how to run it locally."""
    lines = [f"## {outcome.headline()}", "",
             f"Base `{outcome.base}` ({outcome.base_commit[:12]}), checked {outcome.head}; "
             f"{len(outcome.changed)} file(s) changed.", ""]
    for run in outcome.runs:
        cached = "cached" if run.base_cached else "computed now"
        line = (f"- **{run.target}** (compiled for {run.compile_arch} with {run.toolchain}): "
                f"{run.units} translation unit(s) touched by the change, {run.head_compiled} compiled; "
                f"base results {cached}")
        if run.base_compiled:
            line += f" ({run.base_compiled} base unit(s) compiled)"
        if run.head_failed:
            line += f"; failing: {', '.join(f'`{u}`' for u in run.head_failed)}"
        lines.append(line)
        if run.note:
            lines.append(f"  - note: {_md(run.note)}")
    if outcome.runs:
        lines.append("")
    lines += [f"- note: {_md(n)}" for n in outcome.notes]
    if outcome.problems:
        lines += ["| Location | Severity | Kind | Targets | Problem |", "|---|---|---|---|---|"]
        for p in outcome.problems:
            message = p.message + (f" Fix: {p.fix}" if p.fix else "")
            lines.append(f"| {_located(p, link_base)} | {p.severity} | {p.title} | {', '.join(p.targets)} | "
                         f"{_md(message)} |")
        lines.append("")
    else:
        lines += ["Nothing new: every problem of the port was already there at the base.", ""]
    lines += ["Run it locally:", "", "```sh", outcome.reproduce, "```", ""]
    return "\n".join(lines)


def pr_comment(outcome: CheckOutcome, link_base: str | None = None, max_items: int = COMMENT_ITEMS) -> str:
    """A short comment for the pull request: counts, the new problems with links, the local command."""
    kinds = outcome.kinds()
    lines = [COMMENT_MARKER, f"**{outcome.headline()}**", ""]
    if outcome.problems:
        lines.append(", ".join(f"{kinds[k]} {label}" for k, label in
                               (("build", "build error(s)"), ("untranslated", "untranslated identifier(s)"),
                                ("hazard", "hazard(s)")) if kinds[k]))
        lines.append("")
        ordered = sorted(outcome.problems, key=lambda p: (-p.rank, p.file, p.line))
        lines += [_problem_line(p, link_base) for p in ordered[:max_items]]
        if len(ordered) > max_items:
            lines.append(f"- ... and {len(ordered) - max_items} more (see the job summary)")
        lines.append("")
    lines += ["Reproduce locally:", "", "```sh", outcome.reproduce, "```"]
    return "\n".join(lines) + "\n"


def _escape_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _escape_property(text: str) -> str:
    return _escape_data(text).replace(":", "%3A").replace(",", "%2C")


_COMMAND = {"error": "error", "warning": "warning", "note": "notice"}


def annotations(problems: list[Problem]) -> str:
    """GitHub Actions workflow commands, one per problem (`::error file=F,line=L,col=C,title=T::message`)."""
    lines = []
    for p in problems:
        props = []
        if p.file and not p.file.startswith("/"):
            props.append(f"file={_escape_property(p.file)}")
            if p.line:
                props += [f"line={p.line}"] + ([f"col={p.column}"] if p.column else [])
        targets = f" [{', '.join(p.targets)}]" if p.targets else ""
        props.append(f"title={_escape_property(f'porter: {p.title}{targets}')}")
        message = p.message + (f" Fix: {p.fix}" if p.fix else "")
        lines.append(f"::{_COMMAND.get(p.severity, 'warning')} {','.join(props)}::{_escape_data(message)}")
    return "\n".join(lines) + ("\n" if lines else "")


def _rule_descriptor(rule_id: str) -> dict:
    rules = all_rules()
    if rule_id in rules:
        rule = rules[rule_id]
        title, text, help_text, level = rule.title, rule.title, rule.help, rule.severity
        tags = ["porting", "amd", rule.category]
    else:
        title, text, help_text = _PORTER_RULES[rule_id]
        level, tags = "error", ["porting", "amd", rule_id]
    return {"id": rule_id, "name": "".join(w.capitalize() for w in title.replace("/", " ").split() if w.isalnum())
            or rule_id, "shortDescription": {"text": title}, "fullDescription": {"text": text},
            "help": {"text": help_text}, "defaultConfiguration": {"level": level},
            "properties": {"tags": tags}}


def sarif(outcome: CheckOutcome) -> str:
    """SARIF 2.1.0: one result per new problem; hazard rules carry porter's rule texts."""
    ids = sorted({p.rule for p in outcome.problems})
    index = {rule: i for i, rule in enumerate(ids)}
    results = []
    for p in outcome.problems:
        result: dict = {"ruleId": p.rule, "ruleIndex": index[p.rule], "level": p.severity,
                        "message": {"text": p.message + (f". Fix: {p.fix}" if p.fix else "")},
                        "properties": {"kind": p.kind, "targets": list(p.targets)},
                        "partialFingerprints": {"porter/v1": _fingerprint(p)}}
        if p.file and not p.file.startswith("/"):
            region = {"startLine": max(p.line, 1)} | ({"startColumn": p.column} if p.column else {})
            result["locations"] = [{"physicalLocation": {"artifactLocation": {"uri": p.file, "uriBaseId": "%SRCROOT%"},
                                                         "region": region}}]
        results.append(result)
    run = {"tool": {"driver": {"name": "porter", "version": __version__, "rules": [_rule_descriptor(r) for r in ids]}},
           "automationDetails": {"id": f"porter/check/{'+'.join(outcome.targets)}/"},
           "results": results,
           "properties": {"base": outcome.base_commit, "targets": outcome.targets, "built": outcome.built}}
    return json.dumps({"$schema": SARIF_SCHEMA, "version": "2.1.0", "runs": [run]}, indent=2)


_GITLAB_SEVERITY = {"error": "critical", "warning": "major", "note": "info"}


def _fingerprint(p: Problem) -> str:
    text = "\0".join([p.kind, p.file, p.rule, p.message, str(p.line)])
    return hashlib.sha256(text.encode()).hexdigest()[:32]


def gitlab_code_quality(outcome: CheckOutcome) -> str:
    """GitLab's code-quality report (a JSON array; the merge request widget shows what is new)."""
    issues = []
    for p in outcome.problems:
        targets = f" [{', '.join(p.targets)}]" if p.targets else ""
        issues.append({
            "description": f"{p.title}{targets}: {p.message}" + (f" Fix: {p.fix}" if p.fix else ""),
            "check_name": f"porter/{p.rule}",
            "fingerprint": _fingerprint(p),
            "severity": _GITLAB_SEVERITY.get(p.severity, "minor"),
            "location": {"path": p.file or ".", "lines": {"begin": max(p.line, 1)}},
            "categories": ["Compatibility" if p.kind != "hazard" else "Bug Risk"],
        })
    return json.dumps(issues, indent=2)
