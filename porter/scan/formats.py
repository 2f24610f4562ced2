"""Output formats of `porter scan` / `porter check`: rich table, JSON, SARIF 2.1.0, Markdown."""

from __future__ import annotations

import json

from rich.console import Console
from rich.table import Table

from porter import __version__
from porter.scan import Finding, ScanResult
from porter.scan.rules import SEVERITIES, all_rules

FORMATS = ("table", "json", "sarif", "markdown")
SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
_SEVERITY_STYLE = {"error": "bold red", "warning": "yellow", "note": "cyan"}


def to_json(result: ScanResult) -> str:
    return json.dumps(result.as_dict(), indent=2, sort_keys=False)


def to_sarif_dict(result: ScanResult) -> dict:
    rules = all_rules()
    ids = sorted(rules)
    index = {rule_id: i for i, rule_id in enumerate(ids)}
    driver_rules = [
        {
            "id": rule_id,
            "name": "".join(
                w.capitalize() for w in rules[rule_id].title.replace("/", " ").split() if w.isalnum()
            )
            or rule_id,
            "shortDescription": {"text": rules[rule_id].title},
            "fullDescription": {"text": rules[rule_id].help},
            "help": {"text": rules[rule_id].help, "markdown": rules[rule_id].help},
            "defaultConfiguration": {"level": rules[rule_id].severity},
            "properties": {
                "tags": ["porting", "amd", rules[rule_id].category],
                "category": rules[rule_id].category,
            },
        }
        for rule_id in ids
    ]
    results = [
        {
            "ruleId": f.rule,
            "ruleIndex": index[f.rule],
            "level": f.severity,
            "message": {"text": f"{f.message}. Fix: {f.fix}"},
            "locations": [
                {
                    "physicalLocation": {
                        "artifactLocation": {"uri": f.file, "uriBaseId": "%SRCROOT%"},
                        "region": {"startLine": f.line, "startColumn": f.column},
                    }
                }
            ],
            "properties": {"category": f.category, "fix": f.fix},
        }
        for f in result.findings
    ]
    return {
        "$schema": SARIF_SCHEMA,
        "version": "2.1.0",
        "runs": [
            {
                "tool": {
                    "driver": {
                        "name": "porter",
                        "version": __version__,
                        "rules": driver_rules,
                    }
                },
                "automationDetails": {"id": f"porter/scan/{result.target.arch}/"},
                "results": results,
                "properties": {"target": result.target.arch},
            }
        ],
    }


def to_sarif(result: ScanResult) -> str:
    return json.dumps(to_sarif_dict(result), indent=2)


def _md(value: str) -> str:
    return value.replace("|", "\\|").replace("\n", " ")


def summary_line(result: ScanResult) -> str:
    counts = result.counts()
    parts = [f"{counts[s]} {s}{'s' if counts[s] != 1 else ''}" for s in SEVERITIES]
    return f"{len(result.files)} file(s) scanned for {result.target.display}: " + ", ".join(parts)


def to_markdown(result: ScanResult, title: str = "porter hazard scan") -> str:
    lines = [f"## {title}", "", summary_line(result), ""]
    if result.findings:
        lines += ["| Location | Severity | Rule | Problem | Suggested fix |", "|---|---|---|---|---|"]
        for f in result.findings:
            lines.append(
                f"| `{_md(f.file)}:{f.line}:{f.column}` | {f.severity} | {f.rule} ({f.category}) | {_md(f.message)} | {_md(f.fix)} |"
            )
        lines.append("")
    else:
        lines += ["No hazards found.", ""]
    inv = result.inventory
    if inv:
        lines += ["<details><summary>Inventory</summary>", ""]
        lines.append(
            f"- kernels: {len(inv.get('kernels', []))}, launch sites: {len(inv.get('launch_sites', []))}"
        )
        for family, data in inv.get("apis", {}).items():
            lines.append(f"- {family}: {data['uses']} use(s) of {len(data['names'])} API(s)")
        trans = inv.get("translation", {})
        if trans.get("unsupported"):
            lines.append("- no HIP counterpart: " + ", ".join(f"`{n}`" for n in trans["unsupported"]))
        if trans.get("unknown"):
            lines.append("- not (yet) known to porter: " + ", ".join(f"`{n}`" for n in trans["unknown"]))
        lines += ["", "</details>", ""]
    return "\n".join(lines)


def print_table(result: ScanResult, console: Console) -> None:
    if result.findings:
        table = Table(show_lines=False, expand=False)
        table.add_column("Location", no_wrap=True)
        table.add_column("Severity")
        table.add_column("Rule")
        table.add_column("Problem / fix", overflow="fold")
        for f in result.findings:
            table.add_row(
                f"{f.file}:{f.line}:{f.column}",
                f"[{_SEVERITY_STYLE[f.severity]}]{f.severity}[/]",
                f"{f.rule}\n[dim]{f.category}[/]",
                f"{_escape(f.message)}\n[dim]fix: {_escape(f.fix)}[/]",
            )
        console.print(table)
    _print_inventory(result, console)


def _escape(value: str) -> str:
    from rich.markup import escape

    return escape(value)


def _print_inventory(result: ScanResult, console: Console) -> None:
    inv = result.inventory
    if not inv:
        return
    table = Table(title="Inventory", show_header=True)
    table.add_column("API family")
    table.add_column("uses", justify="right")
    table.add_column("APIs", justify="right")
    for family, data in inv.get("apis", {}).items():
        table.add_row(family, str(data["uses"]), str(len(data["names"])))
    if inv.get("apis"):
        console.print(table)
    trans = inv.get("translation", {})
    console.print(
        f"kernels: {len(inv.get('kernels', []))}   launch sites: {len(inv.get('launch_sites', []))}   "
        f"translatable APIs: {len(trans.get('translatable', {}))}   "
        f"no HIP counterpart: {len(trans.get('unsupported', {}))}   unknown: {len(trans.get('unknown', {}))}",
        highlight=False,
    )


def findings_at_or_above(findings: list[Finding], fail_on: str) -> list[Finding]:
    if fail_on == "never":
        return []
    threshold = {"error": 3, "warning": 2, "note": 1}[fail_on]
    return [f for f in findings if f.rank >= threshold]
