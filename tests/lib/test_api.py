"""The public API: each name is declared once, beside its definition (@contract or @public), and these tests
derive from that one list (attnlib.__all__).

The signatures themselves are pinned where a reader sees them: the README's API table is generated from the
declarations (tools/course_map.py), and tests/course/test_manifest.py checks it is up to date, so a changed
signature shows in review as a changed README line.
"""
import inspect
import pathlib
import re

import attnlib
from attnlib._validate import PUBLIC

ROOT = pathlib.Path(attnlib.__file__).parent


def test_every_public_name_is_declared_once_exported_and_documented():
    assert attnlib.__all__ == list(PUBLIC) and len(set(attnlib.__all__)) == len(attnlib.__all__)
    for name in attnlib.__all__:
        obj = getattr(attnlib, name)
        assert obj is PUBLIC[name] and obj.__name__ == name
        doc = inspect.getdoc(obj) or ""
        assert len(doc) > 20 and re.search(r"\(\w*[,)]", doc), f"{name} needs a docstring with shapes"


def test_every_contract_names_real_parameters_and_keeps_the_signature():
    functions = [PUBLIC[n] for n in attnlib.__all__ if inspect.isfunction(PUBLIC[n])]
    assert len(functions) >= 20
    for fn in functions:
        assert hasattr(fn, "contract"), f"{fn.__name__} declares no contract"
        params = inspect.signature(fn).parameters
        assert set(fn.contract) <= set(params), fn.__name__
        assert inspect.signature(fn) == inspect.signature(inspect.unwrap(fn)), fn.__name__


def test_maths_modules_never_import_the_other_products():
    maths = sorted(p for p in ROOT.glob("*.py") if not p.name.startswith("__"))
    assert {"projection.py", "attention.py", "layers.py", "model.py"} <= {p.name for p in maths}
    for path in maths:
        text = path.read_text()
        for product in ("checks", "viewers", "course"):
            assert f"import {product}" not in text and f".{product} import" not in text, (path.name, product)


def test_an_older_copy_of_a_notebook_still_imports_what_moved_and_hears_where_the_rest_went():
    import pytest
    from attnlib import viz, widgets  # noqa: F401 - the import line of every lesson before the viewers moved
    from attnlib.viewers import viz as moved
    assert viz is moved
    with pytest.raises(ImportError, match=r"attnlib.backprop is gone: .*attnlib.layers.*python -m attnlib update NN"):
        from attnlib import backprop  # noqa: F401
    assert not hasattr(attnlib, "no_such_name")
