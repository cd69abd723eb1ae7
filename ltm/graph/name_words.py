"""The words of code names, matched against a question's words: "how are tokens validated" finds
`Validator.validate_token`.

Names are split on case changes, digits, underscores and dots, lower-cased and cut to a crude stem
(`validated`, `validate`, `validation` -> `validat`; `retries`, `retry` -> `retri`). One inverted
index per label is built from the ids of a build (names are read off the ids, no query) the first
time a question needs it, so a match costs a few dictionary lookups. Every strategy that matches
in the graph uses it in place of a full-text index, whose cost in Kuzu grew by tens of
milliseconds per common word.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterable
from functools import lru_cache

import numpy as np
import pyarrow as pa

_PART = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])|\d+")
_SUFFIXES = (("ations", "at"), ("ation", "at"), ("ings", ""), ("ing", ""), ("ers", ""), ("er", ""), ("ed", ""),
             ("es", ""), ("s", ""))
# past forms a question uses for the verbs code names carry ("how is the graph built" -> build_graph)
_IRREGULAR = {"built": "build", "made": "make", "ran": "run", "wrote": "write", "written": "write", "found": "find",
              "sent": "send", "got": "get", "gotten": "get", "kept": "keep", "held": "hold", "chose": "choose",
              "chosen": "choose", "threw": "throw", "thrown": "throw", "took": "take", "taken": "take",
              "gave": "give", "given": "give", "brought": "bring", "bound": "bind", "lost": "lose", "sought": "seek",
              "spawned": "spawn", "fed": "feed", "led": "lead", "hid": "hide", "hidden": "hide", "began": "begin",
              "begun": "begin", "bought": "buy", "caught": "catch", "drew": "draw", "drawn": "draw", "froze": "freeze",
              "frozen": "freeze", "stole": "steal", "stolen": "steal", "understood": "understand"}
NAMED_LABELS = ("Function", "Class", "Module")  # matched by the words of their names
MAX_POSTINGS = 5000  # a word in more names than this says little about any of them


@lru_cache(maxsize=65536)  # names share their parts: each part is cut once
def stem(word: str) -> str:
    """A crude stem: one common suffix off, then a trailing `e`; a trailing `y` reads as `i`."""
    w = _IRREGULAR.get(word.lower(), word.lower())
    for suffix, replacement in _SUFFIXES:
        if w.endswith(suffix) and len(w) - len(suffix) >= 3:
            w = w[: -len(suffix)] + replacement
            break
    if w.endswith("e") and len(w) > 3:
        w = w[:-1]
    if w.endswith("y") and len(w) > 3:
        w = w[:-1] + "i"
    return w


def name_words(name: str) -> set[str]:
    """The stems of a name's parts (`Validator.validate_token` -> {validat, token})."""
    return {stem(p) for p in _PART.findall(name) if len(p) >= 2}


class NameWords:
    """An inverted index from name stems to positions (a label's internal offsets).

    Postings are one flat int32 array with an offset per word, so the index of a build can be
    saved beside it and loaded in milliseconds (`to_arrow` / `from_arrow`, `reader_index.py`).
    """

    def __init__(self, names: Iterable[str | None] = ()):
        index: dict[str, list[int]] = defaultdict(list)
        sizes: list[int] = []
        for pos, name in enumerate(names):
            words = name_words(name) if name else set()
            sizes.append(len(words))
            for w in words:
                index[w].append(pos)
        self._set(list(index), [len(v) for v in index.values()],
                  np.fromiter((p for v in index.values() for p in v), dtype=np.int32),
                  np.asarray(sizes, dtype=np.int32))

    def _set(self, words: list[str], counts: list[int] | np.ndarray, flat: np.ndarray, sizes: np.ndarray) -> None:
        self.row = {w: i for i, w in enumerate(words)}
        self.starts = np.concatenate(([0], np.cumsum(counts, dtype=np.int64)))
        self.flat = flat
        self.sizes = sizes

    def postings(self, word: str) -> np.ndarray:
        """Positions of the names holding stem `word` (empty when none)."""
        i = self.row.get(word)
        return self.flat[self.starts[i]:self.starts[i + 1]] if i is not None else self.flat[:0]

    def match(self, words: Iterable[str], limit: int) -> list[tuple[int, int, int]]:
        """(words shared, name size, position) of the names sharing the most of `words`, best first."""
        stems = {stem(w) for w in words if len(w) >= 3}
        hits: dict[int, int] = defaultdict(int)
        for s in stems:
            postings = self.postings(s)
            if len(postings) <= MAX_POSTINGS:
                for pos in postings.tolist():
                    hits[pos] += 1
        return sorted((-k, int(self.sizes[p]), p) for p, k in hits.items())[:limit]

    def to_arrow(self) -> tuple[pa.Table, np.ndarray]:
        """The index as a table of (word, count) and the flat postings; `from_arrow` reads them back."""
        words = sorted(self.row, key=self.row.__getitem__)
        return pa.table({"word": pa.array(words, pa.string()), "count": pa.array(np.diff(self.starts), pa.int64())}), self.flat

    @classmethod
    def from_arrow(cls, table: pa.Table, flat: np.ndarray, sizes: np.ndarray) -> "NameWords":
        """An index from what `to_arrow` returned and the name sizes (words per position)."""
        out = cls.__new__(cls)
        out._set(table.column("word").to_pylist(), table.column("count").to_numpy(), flat, sizes)
        return out
