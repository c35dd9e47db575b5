"""The operator table printed by ``leafgrad ops``, generated from the op records.

The same text is checked into ``docs/ops.md``; a test regenerates it, so the documented table
can never drift from the code.
"""
from __future__ import annotations

from .registry import RECORDS

__all__ = ["rows", "format_table"]


def rows():
    """One row per record: (family, name, grad_fn name, first, second, checked against
    PyTorch by the registry test, names it provides)."""
    out = []
    for rec in RECORDS.values():
        first = "yes" if rec.differentiable else "-"
        second = "yes" if rec.differentiable and not rec.extra.get("once_differentiable") \
            else "-"
        provides = sorted(set(rec.functions) | set(rec.methods)
                          | ({rec.inplace} if rec.inplace else set()))
        out.append((rec.family or "-", rec.name,
                    rec.grad_fn_name if rec.differentiable else "-", first, second,
                    "yes" if rec.samples is not None else "-",
                    ", ".join(provides) or "(via a public wrapper)"))
    out.sort(key=lambda r: (r[0], r[1]))
    return out


def format_table() -> str:
    """A Markdown table of every op record."""
    head = ("family", "op", "grad_fn", "1st derivative", "2nd derivative", "vs PyTorch",
            "provides")
    lines = ["# leafgrad operator table", "",
             "Generated from the op records by `leafgrad ops` (regenerate: "
             "`leafgrad ops > docs/ops.md`). Every op with samples is checked against "
             "PyTorch 2.13 (values, dtype, grad_fn, first and second derivatives) by "
             "tests/test_ops_registry.py.", "",
             "| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for r in rows():
        lines.append("| " + " | ".join(r) + " |")
    n = len(RECORDS)
    d = sum(1 for rec in RECORDS.values() if rec.differentiable)
    c = sum(1 for rec in RECORDS.values() if rec.samples is not None)
    lines.append("")
    lines.append(f"{n} op records, {d} differentiable, {c} checked against PyTorch.")
    return "\n".join(lines)
