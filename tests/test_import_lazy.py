"""Lazy op families (Note [Lazy families] in leafgrad/ops/lazy.py): ``import leafgrad`` leaves
them unloaded, every lazy name reaches the same object it is once everything is loaded, and
lazy_index.py says exactly what the families define."""
import os
import subprocess
import sys

import leafgrad

SRC = os.path.dirname(leafgrad.__path__[0])


def _run(code: str) -> str:
    env = dict(os.environ, PYTHONPATH=SRC)
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          env=env)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return proc.stdout


def test_fresh_import_leaves_lazy_families_unloaded():
    out = _run("import sys, leafgrad\n"
               "from leafgrad.ops import lazy\n"
               "print(sorted(m for m in lazy.LAZY if m in sys.modules))\n"
               "print(sorted(m for m in sys.modules if m.startswith('leafgrad.ops.linalg_')))\n"
               # dir(), __all__ and hasattr on names list them without loading anything
               "names = dir(leafgrad); assert 'svd' in names and 'max_pool2d' in names\n"
               "assert 'msort' in leafgrad.__all__ and 'unfold' in dir(leafgrad.Tensor)\n"
               "print(sorted(m for m in lazy.LAZY if m in sys.modules))\n")
    assert out.split("\n")[:3] == ["[]", "[]", "[]"]


def test_lazy_index_is_current():
    """lazy_index.py is what the lazy families define now; regenerate it with
    ``python -c "from leafgrad.ops import lazy; lazy.write_index()"`` when this fails."""
    out = _run("from leafgrad.ops import lazy\n"
               "index, problems = lazy.build_index()\n"
               "print(repr(problems))\n"
               "print(lazy.render_index(index), end='')\n")
    problems, _, text = out.partition("\n")
    assert problems == "[]", problems   # a lazy family must not redefine a core name
    with open(os.path.join(SRC, "leafgrad", "ops", "lazy_index.py")) as f:
        assert f.read() == text, "leafgrad/ops/lazy_index.py is stale: regenerate it"


def test_each_lazy_name_is_the_object_load_all_gives():
    # In one interpreter: reach every lazy name one by one (each loads its family on the
    # way), then load everything, and compare identities.
    out = _run(
        "import sys, leafgrad\n"
        "from leafgrad.ops import lazy, registry\n"
        "T = leafgrad.Tensor\n"
        "idx = lazy._index()\n"
        "funcs = {n: getattr(leafgrad, n) for n in idx['FUNCTIONS']}\n"
        "attrs = {n: getattr(T, n) for n in idx['TENSOR']}\n"
        "x = leafgrad.ones(2, 3)\n"
        "bound = {n: getattr(x, n) for n in idx['TENSOR']}\n"
        "recs = {n: registry.RECORDS[n] for n in idx['RECORDS']}\n"
        "lazy.load_all()\n"
        "bad = [n for n, f in funcs.items()\n"
        "       if f is not registry.FUNCTIONS[n] or leafgrad.__dict__[n] is not f]\n"
        "bad += [n for n, a in attrs.items() if type(T.__dict__[n]) is lazy._LazyAttr\n"
        "        or a is not getattr(T, n)]\n"
        "bad += [n for n, r in recs.items() if r is not registry.RECORDS[n]]\n"
        "bad += [n for n, b in bound.items() if isinstance(T.__dict__[n], type(lazy.load))\n"
        "        and b.__func__ is not T.__dict__[n]]\n"
        "print(bad)\n"
        "print(len(funcs), len(attrs), len(recs))\n")
    bad, counts = out.split("\n")[:2]
    assert bad == "[]"
    assert all(int(n) > 20 for n in counts.split())


def test_iterating_the_table_loads_every_family():
    out = _run("import sys, leafgrad\n"
               "from leafgrad.ops import lazy, registry\n"
               "n = len(registry.RECORDS)\n"
               "print(sorted(m for m in lazy.LAZY if m not in sys.modules))\n"
               "print(sum(1 for v in leafgrad.Tensor.__dict__.values()\n"
               "          if type(v) is lazy._LazyAttr))\n"
               "print(n == len(list(registry.RECORDS.items())) > 400)\n")
    assert out.split("\n")[:3] == ["[]", "0", "True"]


def test_torch_style_access_to_lazy_names():
    out = _run(
        "import pickle, leafgrad as torch\n"
        "import leafgrad.nn.functional as F\n"
        "a = torch.tensor([[2.0, 1.0], [1.0, 3.0]], requires_grad=True)\n"
        "print(torch.linalg.svd(a).S.grad_fn.name())\n"
        "print(torch.special.expit(a).grad_fn.name())\n"
        "u = a.unfold(1, 1, 1); print(u.grad_fn.name(), tuple(u.shape))\n"
        "print(F.max_pool2d(a[None, None], 2).grad_fn.name())\n"
        "print(torch.Tensor.unfold is torch.Tensor.__dict__['unfold'])\n"
        "print(hasattr(torch, 'sinc_'), callable(torch.ops.conv.__name__.count))\n"
        "print(pickle.loads(pickle.dumps(torch.diag(a.detach()))).tolist())\n"
        "try:\n    torch.no_such_op\nexcept AttributeError as e:\n    print(e)\n")
    assert out.split("\n")[:8] == [
        "LinalgSvdBackward0", "SigmoidBackward0", "UnfoldBackward0 (2, 2, 1)",
        "MaxPool2DWithIndicesBackward0", "True", "True True", "[2.0, 3.0]",
        "module 'leafgrad' has no attribute 'no_such_op'"]


def test_two_threads_reach_one_lazy_family():
    # Both threads ask for the same unloaded family at once; each must get the finished
    # function (never a placeholder or a half-registered family) and the same result.
    out = _run(
        "import sys, threading, leafgrad as torch\n"
        "from leafgrad.ops import lazy\n"
        "assert 'leafgrad.ops.tensor_extra' not in sys.modules\n"
        "barrier = threading.Barrier(4); results = []\n"
        "def method():\n"
        "    barrier.wait(); x = torch.arange(6.0).reshape(2, 3)\n"
        "    results.append(tuple(x.msort().flatten().tolist()))\n"
        "def function():\n"
        "    barrier.wait(); x = torch.arange(6.0).reshape(2, 3)\n"
        "    results.append(tuple(torch.msort(x).flatten().tolist()))\n"
        "ts = [threading.Thread(target=f) for f in (method, function, method, function)]\n"
        "[t.start() for t in ts]; [t.join() for t in ts]\n"
        "print(len(results), len(set(results)))\n"
        "print(type(torch.Tensor.__dict__['msort']).__name__)\n")
    assert out.split("\n")[:2] == ["4 1", "function"]


def test_precompiled_templates_equal_compiled_ones(monkeypatch):
    """ops/_templates.py holds the public-function templates ahead of time; each must be
    the code registry's ``compile`` makes for that shape (file name and first line too)."""
    from leafgrad.ops import _templates, public_fn as registry   # the templates live there
    assert len(_templates.CODES) > 40
    got = {key: registry._template(*key) for key in _templates.CODES}
    monkeypatch.setattr(registry, "_PRECOMPILED", {})
    for key, code in got.items():
        ref = registry._template(*key)   # compiled from source now
        assert code == ref, key
        for attr in ("co_filename", "co_firstlineno", "co_flags", "co_code", "co_linetable",
                     "co_name", "co_qualname", "co_varnames", "co_consts", "co_names"):
            assert getattr(code, attr) == getattr(ref, attr), (key, attr)


def test_unknown_record_name_loads_everything_before_answering():
    # a record added to a lazy family after lazy_index.py was generated is still found
    out = _run("import leafgrad\n"
               "from leafgrad.ops import lazy, registry\n"
               "print(registry.RECORDS.get('no_such_record'), lazy.loaded_all())\n"
               "print('mul' in registry.RECORDS)\n")
    assert out.split("\n")[:2] == ["None True", "True"]
