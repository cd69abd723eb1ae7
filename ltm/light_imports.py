"""Third-party packages imported lighter, for a cold `ltm query` (issue #18).

LanceDB 0.40 imports `lance_namespace`, which imports the whole generated REST catalog client
(`lance_namespace_urllib3_client`: about 150 request models and ten API modules, ~0.5 s) even
to open a table on the local disk. The client's package `__init__` only re-exports those API
modules; the models live in a subpackage. `defer_package_init` registers the package without
running its `__init__`, so importing `lance_namespace_urllib3_client.models` loads the models
alone; the first attribute anything reads from the package itself runs the real `__init__`, so
a REST namespace (which we never open) would still find every name. If the package is missing
or already imported, nothing changes.

On Python < 3.12 LanceDB marks its overriding methods with `overrides.override`, which checks each
against its bases by disassembling the calling frame's bytecode: ~60 ms for LanceDB's hundred
methods. On 3.12 it uses `typing.override`, which only sets `__override__`. While LanceDB is being
imported, `marker_overrides` gives it that marker (`EnforceOverrides` still sees every override
marked); the real decorator is back once the import is done.
"""

from __future__ import annotations

import importlib.util
import sys
import threading
import types
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

REST_CLIENT = "lance_namespace_urllib3_client"


class _DeferredPackage(types.ModuleType):
    """A package whose `__init__` runs on the first attribute read that it would define."""

    def __getattr__(self, attr: str) -> object:
        run = self.__dict__.pop("_ltm_run_init", None)
        if run is None:
            raise AttributeError(f"module {self.__name__!r} has no attribute {attr!r}")
        run()
        return getattr(self, attr)


def defer_package_init(name: str) -> bool:
    """Register package `name` with its `__init__` deferred; True when it was deferred."""
    if name in sys.modules:
        return False
    try:
        spec = importlib.util.find_spec(name)
    except (ImportError, ValueError):
        return False
    if spec is None or spec.loader is None or not spec.submodule_search_locations:
        return False
    module = importlib.util.module_from_spec(spec)
    lock = threading.Lock()

    def run_init() -> None:
        with lock:
            spec.loader.exec_module(module)  # type: ignore[union-attr]

    module.__class__ = _DeferredPackage
    module.__dict__["_ltm_run_init"] = run_init
    sys.modules[name] = module
    return True


def _mark_override(method: Callable[..., Any] | None = None, **_checks: bool) -> Any:
    """`typing.override` of Python 3.12: mark the method, check nothing (`@override` or `@override(...)`)."""
    if method is None:
        return _mark_override
    try:
        method.__override__ = True  # type: ignore[attr-defined]
    except (AttributeError, TypeError):
        pass
    return method


@contextmanager
def marker_overrides() -> Iterator[None]:
    """While inside, `from overrides import override` gives `_mark_override` (Python < 3.12 only)."""
    if sys.version_info >= (3, 12):
        yield
        return
    try:
        import overrides
        import overrides.overrides as checked
    except ImportError:
        yield
        return
    real = overrides.override
    overrides.override = checked.override = _mark_override  # type: ignore[assignment]
    try:
        yield
    finally:
        overrides.override = checked.override = real  # type: ignore[assignment]


def import_lancedb() -> types.ModuleType:
    """`import lancedb` without loading the REST catalog client until something reads it, and
    without `overrides`' bytecode checks of LanceDB's own classes."""
    if "lancedb" in sys.modules:
        return sys.modules["lancedb"]
    defer_package_init(REST_CLIENT)
    with marker_overrides():
        import lancedb

    return lancedb
