"""The `static` provider: WordLlama's 256-dimension static model, shipped inside its package.

A text's vector is the mean of its tokens' rows (no transformer at run time), so it is over a
hundred times faster than the `local` model on a CPU, at some cost in retrieval quality: on the
docstring -> function probe of `bench/embed.py` it keeps 65-85% of `local`'s recall@5, and beats
the model2vec-style table this provider used to distil from all-MiniLM-L6-v2 on first use
(BENCHMARKS.md). The `wordllama` wheel carries its weights and tokenizer: nothing is
downloaded or distilled, and no torch is needed.

Homes embedded by that earlier distilled table (model `ltm-static/all-MiniLM-L6-v2-distilled`)
are told to re-embed: their vectors cannot be compared with this model's.
"""

from __future__ import annotations

import logging
from pathlib import Path

import numpy as np

from ltm.embed.base import Usage
from ltm.errors import EmbeddingError

STATIC_MODEL = "wordllama/l2_supercat-256"
DIMS = 256
MAX_TOKENS = 2048  # a text's first tokens; bounds a batch's memory (a row of 1 KB per token)
RETIRED_MODELS = ("ltm-static/",)  # the table distilled from all-MiniLM-L6-v2 before WordLlama


def _load_wordllama():  # type: ignore[no-untyped-def]
    root = logging.getLogger()
    handlers, level = list(root.handlers), root.level
    try:
        import wordllama
        from wordllama import WordLlama
    except ImportError as e:
        raise EmbeddingError("the static embedder needs the `static` extra: pip install -e '.[static]'") from e
    finally:  # its inference module calls logging.basicConfig(level=INFO) on import: keep ours
        root.handlers[:], root.level = handlers, level
    # The wheel keeps its files under `weights/` and `tokenizers/` beside the module, where the loader
    # looks when that folder is given as its cache; never let it reach for the hub.
    package = Path(wordllama.__file__).parent
    try:
        return WordLlama.load(config="l2_supercat", dim=DIMS, cache_dir=package, disable_download=True)
    except FileNotFoundError as e:
        raise EmbeddingError(f"the wordllama package under {package} lacks its bundled model: reinstall it "
                             "(pip install --force-reinstall 'wordllama==0.4.0.post1')") from e


class StaticEmbedder:
    """Mean of static token vectors: no transformer at run time."""

    def __init__(self, batch_size: int = 256):
        model = _load_wordllama()
        self._table = model.embedding
        self._tok = model.tokenizer
        self._tok.no_padding()  # pooled here from flat ids, not from a padded batch
        self._tok.enable_truncation(MAX_TOKENS)
        self.dim = int(self._table.shape[1])
        self.model_id = STATIC_MODEL
        self.batch_size = batch_size
        self.usage = Usage()

    def embed(self, texts: list[str]) -> np.ndarray:
        self.usage.add(requests=1)
        texts = list(texts)
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for start in range(0, len(texts), self.batch_size):
            encs = self._tok.encode_batch(texts[start:start + self.batch_size], add_special_tokens=False)
            ids = [np.asarray(e.ids, dtype=np.int64) for e in encs]
            lengths = np.array([len(i) for i in ids])
            nonempty = lengths > 0  # an empty text stays the zero vector
            if nonempty.any():
                flat = np.concatenate([i for i in ids if len(i)])
                starts = np.concatenate([[0], np.cumsum(lengths[nonempty])[:-1]])
                rows = np.flatnonzero(nonempty) + start
                out[rows] = np.add.reduceat(self._table[flat], starts, axis=0) / lengths[nonempty, None]
        norms = np.linalg.norm(out, axis=1, keepdims=True)
        return out / np.where(norms == 0, 1.0, norms)
