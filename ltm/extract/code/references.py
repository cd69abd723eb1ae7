"""Functions passed as values, and which of them count as calls.

`functools.partial(f, x)`, `map(f, xs)`, `Thread(target=self.run)`, `run_in_threadpool(f)`,
`app.use(logger)`, `setTimeout(onTimeout, 10)`: the function is handed to code that will run it
on the caller's behalf, which is why it was passed. A reader asking "what calls f" wants these
callers; without them a function that is only ever scheduled, wrapped or registered looks dead.
So a reference is a CALLS edge, at `REFERENCE` (0.7): the name is resolved as surely as a direct
call's, but whether the receiving code runs it is not seen here (a direct call keeps its own,
higher confidence when both exist).

What the query files capture as a reference (`@ref.name`, `@ref.receiver`): a bare name or a
`x.name` attribute as an argument, positional or keyword. What does not count: a name the caller
binds itself (a parameter, an assigned or loop variable: the query's `@local` captures, checked in
`parse.py`, closures included), `update_wrapper(wrapper, f)` and `wraps(f)` (they copy a name, run
nothing), a class (`isinstance(x, Foo)` constructs nothing), and any name only the
repository-wide guesses would bind: most names passed to a call are variables.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ltm.extract.code.resolve import ParsedFile, Resolver

REFERENCE = 0.7


def resolve_reference(r: Resolver, f: ParsedFile, ref: tuple) -> tuple[str, float] | None:
    """The function a name passed as a value denotes and REFERENCE, or None.

    Bound by scope (a nested function of the caller or an encloser, a top-level function of the
    file or its module), by import (an imported function, a function of an imported module), or by
    `self`/`this` (a method of the caller's class or its bases). A function naming itself is no edge.
    """
    spec, b = f.spec, r.bindings[f.path]
    name, recv, _, caller_index, _ = ref
    d, caller = f.facts["defs"][caller_index], f.def_ids[caller_index]
    hit: str | None = None
    if recv is None:
        scope = d["qualified_name"]
        while scope and hit is None:
            hit = r.nested[f.path].get((scope, name))
            scope = scope.rpartition(".")[0]
        hit = hit or r.file_top[f.path].get(name)
        if hit is None and len(same := r.top[f.module_id].get(name, [])) == 1:
            hit = same[0]
        if hit is None and name in b.symbols:
            hit = r.exported(*b.symbols[name])
    elif recv in spec.self_names or recv == d["self_name"]:
        cls = r.owner.get(caller)
        hit = m[0] if cls is not None and (m := r.method(cls, name)) else None
    elif recv in b.aliases:
        hit = r.exported(b.aliases[recv], name)
    return (hit, REFERENCE) if hit is not None and hit != caller else None
