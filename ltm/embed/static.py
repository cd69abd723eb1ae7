"""The `static` provider: a static embedding model distilled from the bundled all-MiniLM-L6-v2.

The recipe is model2vec's: every vocabulary token alone is run through the transformer once
(mean-pooled like the sentence model), the table is reduced with PCA to `dims` dimensions and
weighted by a Zipf estimate of token frequency (SIF). A text's vector is then the mean of its
tokens' rows: no transformer at run time, so it is tens of times faster on a CPU, at some cost
in retrieval quality (see BENCHMARKS.md). `model2vec[distill]` itself pins transformers < 5.4,
which conflicts with the sentence-transformers stack installed here, so the few lines of the
recipe live here and need only torch and the bundled model, offline.

The distilled table (about 30 MB) is made on first use and kept in `$LTM_MODEL_CACHE`, else
`$XDG_CACHE_HOME/hybrid-ltm/models`, else `~/.cache/hybrid-ltm/models`: it depends only on the
bundled model, so every home on the machine shares it and queries find it too.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import numpy as np

from ltm.embed.base import Usage
from ltm.embed.local import local_model_path
from ltm.errors import EmbeddingError

STATIC_MODEL = "ltm-static/all-MiniLM-L6-v2-distilled"
DIMS = 256
SIF = 1e-4
MAX_TOKENS = 512


def model_cache_root() -> Path:
    """Where distilled static models are kept (shared by every home of this user)."""
    if os.environ.get("LTM_MODEL_CACHE"):
        return Path(os.environ["LTM_MODEL_CACHE"])
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "hybrid-ltm" / "models"


def distill(source: str, out_dir: Path, dims: int = DIMS, batch_size: int = 512) -> Path:
    """Distill a static table from the sentence model at `source` into `out_dir` (atomic)."""
    try:
        import torch
        from transformers import AutoModel, AutoTokenizer
    except ImportError as e:
        raise EmbeddingError("distilling the static model needs the `local` extra: pip install -e '.[local]'") from e
    tok = AutoTokenizer.from_pretrained(source, local_files_only=True)
    model = AutoModel.from_pretrained(source, local_files_only=True).eval()
    n = len(tok)
    cls, sep = tok.cls_token_id, tok.sep_token_id
    table = np.zeros((n, model.config.hidden_size), dtype=np.float32)
    with torch.inference_mode():
        for start in range(0, n, batch_size):
            ids = torch.arange(start, min(n, start + batch_size))
            inp = torch.stack([torch.full_like(ids, cls), ids, torch.full_like(ids, sep)], dim=1)
            hidden = model(input_ids=inp, attention_mask=torch.ones_like(inp)).last_hidden_state
            table[start : start + len(ids)] = hidden.mean(dim=1).numpy()
    centered = table - table.mean(axis=0)
    _, _, vt = np.linalg.svd(centered, full_matrices=False)
    reduced = centered @ vt[: min(dims, vt.shape[0])].T
    rank = np.arange(1, n + 1, dtype=np.float64)  # WordPiece ids follow frequency closely enough (as model2vec assumes)
    prob = (1.0 / rank) / np.sum(1.0 / rank)
    reduced *= (SIF / (SIF + prob))[:, None]
    out_dir.parent.mkdir(parents=True, exist_ok=True)
    tmp = out_dir.with_name(out_dir.name + f".tmp{os.getpid()}")
    tmp.mkdir(exist_ok=True)
    np.save(tmp / "embeddings.npy", reduced.astype(np.float32))
    tok.backend_tokenizer.save(str(tmp / "tokenizer.json"))
    (tmp / "meta.json").write_text(json.dumps({"source": source, "dims": int(reduced.shape[1]), "vocab": n}) + "\n")
    try:
        os.replace(tmp, out_dir)
    except OSError:  # another process finished first: keep theirs
        for f in tmp.iterdir():
            f.unlink()
        tmp.rmdir()
    return out_dir


class StaticEmbedder:
    """Mean of distilled token vectors: no transformer at run time."""

    def __init__(self, batch_size: int = 1024, cache_root: str | Path | None = None, dims: int = DIMS):
        from tokenizers import Tokenizer

        root = Path(cache_root) if cache_root else model_cache_root()
        path = root / f"static-minilm-l6-v2-{dims}"
        if not (path / "meta.json").exists():
            distill(local_model_path(), path, dims)
        self._table = np.load(path / "embeddings.npy")
        self._tok = Tokenizer.from_file(str(path / "tokenizer.json"))
        self._tok.no_padding()
        self._tok.enable_truncation(MAX_TOKENS)
        self.dim = int(self._table.shape[1])
        self.model_id = STATIC_MODEL if dims == DIMS else f"{STATIC_MODEL}@{dims}"
        self.batch_size = batch_size
        self.usage = Usage()
        self.path = path

    def embed(self, texts: list[str]) -> np.ndarray:
        self.usage.add(requests=1)
        encs = self._tok.encode_batch(list(texts), add_special_tokens=False)
        ids = [np.asarray(e.ids, dtype=np.int64) for e in encs]
        lengths = np.array([len(i) for i in ids])
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        nonempty = lengths > 0
        if nonempty.any():
            flat = np.concatenate([i for i in ids if len(i)])
            starts = np.concatenate([[0], np.cumsum(lengths[nonempty])[:-1]])
            out[nonempty] = np.add.reduceat(self._table[flat], starts, axis=0) / lengths[nonempty, None]
        norms = np.linalg.norm(out, axis=1, keepdims=True)
        return out / np.where(norms == 0, 1.0, norms)
