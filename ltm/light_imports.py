"""Third-party packages imported lighter, for a cold `ltm query` (issue #18).

LanceDB 0.40 imports `lance_namespace`, which imports the whole generated REST catalog client
(`lance_namespace_urllib3_client`: about 150 request models and ten API modules, ~0.5 s) even
to open a table on the local disk. The client's package `__init__` only re-exports those API
modules; the models live in a subpackage. `defer_package_init` registers the package without
running its `__init__`, so importing `lance_namespace_urllib3_client.models` loads the models
alone; the first attribute anything reads from the package itself runs the real `__init__`, so
a REST namespace (which we never open) would still find every name. If the package is missing
or already imported, nothing changes.
"""

from __future__ import annotations

import importlib.util
import sys
import threading
import types

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


def import_lancedb() -> types.ModuleType:
    """`import lancedb` without loading the REST catalog client until something reads it."""
    if "lancedb" not in sys.modules:
        defer_package_init(REST_CLIENT)
    import lancedb

    return lancedb
