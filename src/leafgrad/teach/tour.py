"""``leafgrad tour``: a printed, guided walk through autograd, run live on leafgrad.

Each section is a function in one of the ``tour_*`` modules, registered with ``@section``.
A section talks (``t.say``) and runs code at a printed prompt (``t.run``); the code shown is
the code that runs. Output is deterministic: every section seeds the generator first.

>>> [s.name for s in list_sections()][:3]
['chain', 'vjp', 'accumulate']
"""
from __future__ import annotations

import sys
from collections.abc import Callable
from dataclasses import dataclass

from .repl import Session, wrap

__all__ = ["SECTIONS", "Section", "Tour", "list_sections", "run_tour", "section"]


@dataclass
class Section:
    name: str
    title: str
    run: Callable
    module: str = ""


SECTIONS: list = []
# the section modules, in tour order; within a module, sections run in definition order
_MODULES = ("tour_basics", "tour_modes", "tour_checks", "tour_train")


def section(name: str, title: str):
    """Register a tour section."""
    def register(fn):
        SECTIONS.append(Section(name, title, fn, fn.__module__.rsplit(".", 1)[-1]))
        return fn
    return register


class Tour:
    """What a section gets: prose, a prompt to run code at, and tour-wide options."""

    def __init__(self, options: dict | None = None, write=None):
        self.options = options or {}
        self._out = write or (lambda s: print(s, flush=True))
        self._blank = True
        self.session = None

    def write(self, text: str) -> None:
        """Print ``text``; runs of blank lines collapse to one."""
        if text.strip("\n") == "":
            if not self._blank:
                self._out("")
            self._blank = True
            return
        self._out(text)
        self._blank = False

    def fresh(self) -> Session:
        """A new namespace with ``torch`` (leafgrad) imported and the generator seeded."""
        import leafgrad as torch
        torch.manual_seed(0)
        self.session = Session({"__name__": "__tour__", "torch": torch}, self.write)
        return self.session

    def say(self, text: str) -> None:
        self.write("")
        self.write(wrap(text))
        self.write("")

    def run(self, source: str, **kwargs) -> None:
        self.session.run(source, **kwargs)


def list_sections() -> list:
    """All sections in tour order (importing a module registers its sections)."""
    import importlib
    for name in _MODULES:
        importlib.import_module(f"{__package__}.{name}")
    return sorted(SECTIONS, key=lambda s: _MODULES.index(s.module))


def _header(i: int, n: int, sec: Section) -> str:
    text = f" {i}/{n}  {sec.name}: {sec.title}"
    return "═" * 88 + "\n" + text + "\n" + "═" * 88


def run_tour(names=None, *, pause: bool = False, options: dict | None = None,
             write=None) -> int:
    """Run the sections called ``names`` (all, in order, when None). Returns an exit status."""
    sections = list_sections()
    if names:
        by_name = {s.name: s for s in sections}
        unknown = [n for n in names if n not in by_name]
        if unknown:
            print(f"leafgrad tour: no section {unknown[0]!r}; sections: "
                  + ", ".join(s.name for s in sections), file=sys.stderr)
            return 2
        chosen = [by_name[n] for n in names]
    else:
        chosen = sections
    tour = Tour(options, write)
    if not names:
        tour.write(wrap("""
            A tour of autograd, run live on leafgrad (PyTorch's autograd in pure Python on
            NumPy). Every line after >>> is real code executed as you read; what follows it
            is what Python printed. `leafgrad tour --list` lists the parts, `--section NAME`
            runs one, `--pause` waits for Enter between them.
            """))
    for k, sec in enumerate(chosen):
        index = sections.index(sec) + 1
        tour.write("")
        tour.write(_header(index, len(sections), sec))
        tour.fresh()
        sec.run(tour)
        if pause and k + 1 < len(chosen):
            try:
                input("\n[Enter: next part] ")
            except EOFError:
                pass
    return 0
