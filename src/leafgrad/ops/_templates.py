"""The public-function templates of ops/public_fn.py (Note [Cheap defop]), compiled ahead.

``_template(P, K)`` in public_fn.py compiles ``def f(p0, ..., *, k0, ...): return
_dispatch(_rec, (p0, ..., k0, ...))`` for a record with P positional and K keyword-only
parameters. Compiling them at import cost more than a tenth of ``import leafgrad``; written
here they come from this module's cached bytecode instead. public_fn.py uses ``CODES[(P, K)]``
(its file name and first line set to those of a compiled template) and compiles the shapes
missing here; tests/test_import_lazy.py checks each one equals the compiled template."""
# flake8: noqa
from __future__ import annotations   # as public_fn.py, whose compile() calls inherit it

def _t0_1(*, p0):
    return _dispatch(_rec, (p0,))

def _t0_2(*, p0, p1):
    return _dispatch(_rec, (p0, p1))

def _t0_3(*, p0, p1, p2):
    return _dispatch(_rec, (p0, p1, p2))

def _t0_4(*, p0, p1, p2, p3):
    return _dispatch(_rec, (p0, p1, p2, p3))

def _t1_0(p0):
    return _dispatch(_rec, (p0,))

def _t1_1(p0, *, p1):
    return _dispatch(_rec, (p0, p1))

def _t1_2(p0, *, p1, p2):
    return _dispatch(_rec, (p0, p1, p2))

def _t1_3(p0, *, p1, p2, p3):
    return _dispatch(_rec, (p0, p1, p2, p3))

def _t1_4(p0, *, p1, p2, p3, p4):
    return _dispatch(_rec, (p0, p1, p2, p3, p4))

def _t2_0(p0, p1):
    return _dispatch(_rec, (p0, p1))

def _t2_1(p0, p1, *, p2):
    return _dispatch(_rec, (p0, p1, p2))

def _t2_2(p0, p1, *, p2, p3):
    return _dispatch(_rec, (p0, p1, p2, p3))

def _t2_3(p0, p1, *, p2, p3, p4):
    return _dispatch(_rec, (p0, p1, p2, p3, p4))

def _t2_4(p0, p1, *, p2, p3, p4, p5):
    return _dispatch(_rec, (p0, p1, p2, p3, p4, p5))

def _t3_0(p0, p1, p2):
    return _dispatch(_rec, (p0, p1, p2))

def _t3_1(p0, p1, p2, *, p3):
    return _dispatch(_rec, (p0, p1, p2, p3))

def _t3_2(p0, p1, p2, *, p3, p4):
    return _dispatch(_rec, (p0, p1, p2, p3, p4))

def _t3_3(p0, p1, p2, *, p3, p4, p5):
    return _dispatch(_rec, (p0, p1, p2, p3, p4, p5))

def _t3_4(p0, p1, p2, *, p3, p4, p5, p6):
    return _dispatch(_rec, (p0, p1, p2, p3, p4, p5, p6))

def _t4_0(p0, p1, p2, p3):
    return _dispatch(_rec, (p0, p1, p2, p3))

def _t4_1(p0, p1, p2, p3, *, p4):
    return _dispatch(_rec, (p0, p1, p2, p3, p4))

def _t4_2(p0, p1, p2, p3, *, p4, p5):
    return _dispatch(_rec, (p0, p1, p2, p3, p4, p5))

def _t4_3(p0, p1, p2, p3, *, p4, p5, p6):
    return _dispatch(_rec, (p0, p1, p2, p3, p4, p5, p6))

def _t4_4(p0, p1, p2, p3, *, p4, p5, p6, p7):
    return _dispatch(_rec, (p0, p1, p2, p3, p4, p5, p6, p7))

def _t5_0(p0, p1, p2, p3, p4):
    return _dispatch(_rec, (p0, p1, p2, p3, p4))

def _t5_1(p0, p1, p2, p3, p4, *, p5):
    return _dispatch(_rec, (p0, p1, p2, p3, p4, p5))

def _t5_2(p0, p1, p2, p3, p4, *, p5, p6):
    return _dispatch(_rec, (p0, p1, p2, p3, p4, p5, p6))

def _t5_3(p0, p1, p2, p3, p4, *, p5, p6, p7):
    return _dispatch(_rec, (p0, p1, p2, p3, p4, p5, p6, p7))

def _t5_4(p0, p1, p2, p3, p4, *, p5, p6, p7, p8):
    return _dispatch(_rec, (p0, p1, p2, p3, p4, p5, p6, p7, p8))

def _t6_0(p0, p1, p2, p3, p4, p5):
    return _dispatch(_rec, (p0, p1, p2, p3, p4, p5))

def _t6_1(p0, p1, p2, p3, p4, p5, *, p6):
    return _dispatch(_rec, (p0, p1, p2, p3, p4, p5, p6))

def _t6_2(p0, p1, p2, p3, p4, p5, *, p6, p7):
    return _dispatch(_rec, (p0, p1, p2, p3, p4, p5, p6, p7))

def _t6_3(p0, p1, p2, p3, p4, p5, *, p6, p7, p8):
    return _dispatch(_rec, (p0, p1, p2, p3, p4, p5, p6, p7, p8))

def _t6_4(p0, p1, p2, p3, p4, p5, *, p6, p7, p8, p9):
    return _dispatch(_rec, (p0, p1, p2, p3, p4, p5, p6, p7, p8, p9))

def _t7_0(p0, p1, p2, p3, p4, p5, p6):
    return _dispatch(_rec, (p0, p1, p2, p3, p4, p5, p6))

def _t7_1(p0, p1, p2, p3, p4, p5, p6, *, p7):
    return _dispatch(_rec, (p0, p1, p2, p3, p4, p5, p6, p7))

def _t7_2(p0, p1, p2, p3, p4, p5, p6, *, p7, p8):
    return _dispatch(_rec, (p0, p1, p2, p3, p4, p5, p6, p7, p8))

def _t7_3(p0, p1, p2, p3, p4, p5, p6, *, p7, p8, p9):
    return _dispatch(_rec, (p0, p1, p2, p3, p4, p5, p6, p7, p8, p9))

def _t7_4(p0, p1, p2, p3, p4, p5, p6, *, p7, p8, p9, p10):
    return _dispatch(_rec, (p0, p1, p2, p3, p4, p5, p6, p7, p8, p9, p10))

def _t8_0(p0, p1, p2, p3, p4, p5, p6, p7):
    return _dispatch(_rec, (p0, p1, p2, p3, p4, p5, p6, p7))

def _t8_1(p0, p1, p2, p3, p4, p5, p6, p7, *, p8):
    return _dispatch(_rec, (p0, p1, p2, p3, p4, p5, p6, p7, p8))

def _t8_2(p0, p1, p2, p3, p4, p5, p6, p7, *, p8, p9):
    return _dispatch(_rec, (p0, p1, p2, p3, p4, p5, p6, p7, p8, p9))

def _t8_3(p0, p1, p2, p3, p4, p5, p6, p7, *, p8, p9, p10):
    return _dispatch(_rec, (p0, p1, p2, p3, p4, p5, p6, p7, p8, p9, p10))

def _t8_4(p0, p1, p2, p3, p4, p5, p6, p7, *, p8, p9, p10, p11):
    return _dispatch(_rec, (p0, p1, p2, p3, p4, p5, p6, p7, p8, p9, p10, p11))

def _t9_0(p0, p1, p2, p3, p4, p5, p6, p7, p8):
    return _dispatch(_rec, (p0, p1, p2, p3, p4, p5, p6, p7, p8))

def _t9_1(p0, p1, p2, p3, p4, p5, p6, p7, p8, *, p9):
    return _dispatch(_rec, (p0, p1, p2, p3, p4, p5, p6, p7, p8, p9))

def _t9_2(p0, p1, p2, p3, p4, p5, p6, p7, p8, *, p9, p10):
    return _dispatch(_rec, (p0, p1, p2, p3, p4, p5, p6, p7, p8, p9, p10))

def _t9_3(p0, p1, p2, p3, p4, p5, p6, p7, p8, *, p9, p10, p11):
    return _dispatch(_rec, (p0, p1, p2, p3, p4, p5, p6, p7, p8, p9, p10, p11))

def _t9_4(p0, p1, p2, p3, p4, p5, p6, p7, p8, *, p9, p10, p11, p12):
    return _dispatch(_rec, (p0, p1, p2, p3, p4, p5, p6, p7, p8, p9, p10, p11, p12))

def _t10_0(p0, p1, p2, p3, p4, p5, p6, p7, p8, p9):
    return _dispatch(_rec, (p0, p1, p2, p3, p4, p5, p6, p7, p8, p9))

def _t10_1(p0, p1, p2, p3, p4, p5, p6, p7, p8, p9, *, p10):
    return _dispatch(_rec, (p0, p1, p2, p3, p4, p5, p6, p7, p8, p9, p10))

def _t10_2(p0, p1, p2, p3, p4, p5, p6, p7, p8, p9, *, p10, p11):
    return _dispatch(_rec, (p0, p1, p2, p3, p4, p5, p6, p7, p8, p9, p10, p11))

def _t10_3(p0, p1, p2, p3, p4, p5, p6, p7, p8, p9, *, p10, p11, p12):
    return _dispatch(_rec, (p0, p1, p2, p3, p4, p5, p6, p7, p8, p9, p10, p11, p12))

def _t10_4(p0, p1, p2, p3, p4, p5, p6, p7, p8, p9, *, p10, p11, p12, p13):
    return _dispatch(_rec, (p0, p1, p2, p3, p4, p5, p6, p7, p8, p9, p10, p11, p12, p13))

CODES = {(int(n[2:].split('_')[0]), int(n.split('_')[2])): f.__code__
         for n, f in list(globals().items()) if n.startswith('_t') and callable(f)}
