"""ops/_alias_templates.py holds the alias templates (records with ``dim``/``keepdim`` that
also take NumPy's ``axis=``/``keepdims=``) compiled ahead, as _templates.py does for the
plain ones: each must be the very code ``_alias_template`` compiles for its shape, and the
file must list every shape the records use (else it is stale: regenerate it with
``public_fn.write_alias_templates()``)."""
from __future__ import annotations

from leafgrad.ops import _alias_templates, lazy, public_fn


def test_precompiled_alias_templates_equal_compiled_ones(monkeypatch):
    assert len(_alias_templates.CODES) > 20
    got = {key: public_fn._alias_template(*key) for key in _alias_templates.CODES}
    monkeypatch.setattr(public_fn, "_PRECOMPILED_ALIAS", {})
    for key, code in got.items():
        ref = public_fn._alias_template(*key)   # compiled from source now
        assert code == ref, key
        for attr in ("co_filename", "co_firstlineno", "co_flags", "co_code", "co_linetable",
                     "co_name", "co_qualname", "co_varnames", "co_consts", "co_names",
                     "co_argcount", "co_kwonlyargcount"):
            assert getattr(code, attr) == getattr(ref, attr), (key, attr)


def test_alias_templates_cover_every_record():
    lazy.load_all()
    used = {k[1:] for k in public_fn._TEMPLATES if k[0] == "alias"}
    assert used <= set(_alias_templates.CODES), sorted(used - set(_alias_templates.CODES))
