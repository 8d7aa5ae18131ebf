"""`bench-op merge REPORT...`: the JSON reports of `bench-op run --shard I/N` as one report, one status and
one summary. Applying the fixes (`--patch`) and committing them stay with whoever merges."""

from __future__ import annotations

import json

from benchop_hook.commands.ci import summarize, write_text
from benchop_hook.commands.options import Options
from benchop_hook.errors import EXIT_BLOCKED, EXIT_OK, BenchOpError, UsageError


def _read(path: str) -> dict[str, object]:
    try:
        with open(path, encoding="utf-8") as f:
            data = json.load(f)
    except FileNotFoundError:
        raise UsageError(f"{path} does not exist: give the reports `bench-op run --json` wrote.") from None
    except (OSError, ValueError) as exc:
        raise UsageError(
            f"{path} is not a JSON report ({exc}): give the reports `bench-op run --json` wrote."
        ) from None
    if not isinstance(data, dict):
        raise UsageError(f"{path} is not a bench-op report: give the reports `bench-op run --json` wrote.")
    return data


def _fails_on_regression(opts: Options) -> bool:
    """`fail-on-regression` of the repository merge runs in, if it runs in one."""
    from benchop_hook import config
    from benchop_hook.git.repo import find_repo

    try:
        return config.load(find_repo(opts.directory).root).fail_on_regression
    except BenchOpError:
        return False


def main(opts: Options) -> int:
    from benchop_hook.report.merge import merge_reports, merged_lines
    from benchop_hook.report.out import write_json
    from benchop_hook.report.reports import read_report

    reports = []
    for path in opts.reports:
        try:
            reports.append(read_report(_read(path)))
        except UsageError as exc:
            raise UsageError(f"{path}: {exc.message}") from None
    data = merge_reports(reports, opts.reports)
    merged = read_report(data)
    for line in merged_lines(merged):
        print(line)
    if opts.format == "github":
        from benchop_hook.report.github import render

        text = render(merged)
        if text:
            print(text)
    if opts.json:
        write_json(opts.json, data)
    if opts.patch:
        write_text(opts.patch, "".join(d for _, d in sorted(merged.diffs.items())))
    summarize(opts, "run", data)
    if merged.status == "blocked":
        return EXIT_BLOCKED
    if merged.regressions and _fails_on_regression(opts):
        print("bench-op: exit 1: fail-on-regression = true and the change regressed against the parent.")
        return EXIT_BLOCKED
    return EXIT_OK
