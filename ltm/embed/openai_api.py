"""The `openai` provider: the official client against OpenAI or any OpenAI-compatible server.

Batches hold at most 2,048 inputs and at most `max_request_tokens` tokens, counted offline with
the model's tokenizer (`ltm.embed.tokens`); an input longer than the model's limit is truncated
and counted. Requests run `concurrency` at a time (the pipeline's thread pool). 429, 5xx,
timeouts and dropped connections are retried with exponential backoff and jitter, waiting at
least what `Retry-After` asks; anything else (a bad key, a bad request) fails at once. The key
comes from the argument or `$OPENAI_API_KEY` and never appears in a message.
"""

from __future__ import annotations

import email.utils
import os
import random
import time
from typing import Any

import numpy as np

from ltm.embed.base import Usage
from ltm.embed.tokens import TokenCounter
from ltm.errors import BatchFailedError, EmbeddingError

MAX_INPUTS = 2048
MAX_INPUT_TOKENS = 8191
MAX_REQUEST_TOKENS = 300_000
KNOWN_DIMS = {"text-embedding-3-small": 1536, "text-embedding-3-large": 3072, "text-embedding-ada-002": 1536}
PRICE_PER_MILLION_TOKENS = {"text-embedding-3-small": 0.02, "text-embedding-3-large": 0.13, "text-embedding-ada-002": 0.10}


def resolve_api_key(api_key: str | None = None) -> str:
    """The key to send: the argument, else `$OPENAI_API_KEY`; EmbeddingError naming the fix if neither."""
    key = api_key or os.environ.get("OPENAI_API_KEY")
    if not key:
        raise EmbeddingError("the openai embedder needs an API key: set OPENAI_API_KEY (or use --embedder local)")
    return key


def retry_after_seconds(headers: Any) -> float | None:
    """The wait a 429/503 response asks for: `retry-after-ms`, else `retry-after` (seconds or a date)."""
    if headers is None:
        return None
    ms = headers.get("retry-after-ms")
    if ms:
        try:
            return float(ms) / 1000.0
        except ValueError:
            pass
    value = headers.get("retry-after")
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        try:
            when = email.utils.parsedate_to_datetime(value)
        except (TypeError, ValueError):
            return None
        return max(0.0, when.timestamp() - time.time())


class OpenAIEmbedder:
    """Embeddings through the official `openai` client, batched, concurrent and retried."""

    def __init__(
        self,
        model: str = "text-embedding-3-small",
        api_key: str | None = None,
        base_url: str | None = None,
        dimensions: int | None = None,
        batch_size: int = MAX_INPUTS,
        max_request_tokens: int = MAX_REQUEST_TOKENS,
        max_input_tokens: int = MAX_INPUT_TOKENS,
        concurrency: int = 4,
        timeout: float = 60.0,
        max_retries: int = 6,
        backoff_base_s: float = 0.5,
        backoff_max_s: float = 30.0,
        max_retry_after_s: float = 120.0,
        price_per_million_tokens: float | None = None,
    ):
        key = resolve_api_key(api_key)
        from openai import OpenAI

        self._key = key
        self._client = OpenAI(
            api_key=key, base_url=base_url or os.environ.get("OPENAI_BASE_URL") or None, timeout=timeout, max_retries=0
        )
        self._model, self._dimensions = model, dimensions
        self.model_id = model if dimensions is None else f"{model}@{dimensions}"
        self.batch_size = max(1, min(batch_size, MAX_INPUTS))
        self.max_request_tokens = max_request_tokens
        self.max_input_tokens = min(max_input_tokens, max_request_tokens)
        self.concurrency = max(1, concurrency)
        self.max_retries = max_retries
        self.backoff_base_s, self.backoff_max_s, self.max_retry_after_s = backoff_base_s, backoff_max_s, max_retry_after_s
        self.price = price_per_million_tokens if price_per_million_tokens is not None else PRICE_PER_MILLION_TOKENS.get(model)
        self.tokens = TokenCounter()
        self.usage = Usage()
        self._dim: int | None = dimensions or KNOWN_DIMS.get(model)

    @property
    def base_url(self) -> str:
        return str(self._client.base_url)

    @property
    def dim(self) -> int:
        if self._dim is None:  # an unknown model on a compatible server: ask it once
            self._dim = int(self.embed(["dimension probe"]).shape[1])
        return self._dim

    def cost_usd(self) -> float | None:
        """Estimated dollars for the tokens sent so far (None when the model's price is unknown)."""
        return None if self.price is None else round(self.usage.tokens * self.price / 1_000_000, 9)

    def plan(self, texts: list[str]) -> tuple[list[str], list[list[int]]]:
        """Truncate over-long texts and group indices into batches within both request limits."""
        sent: list[str] = []
        counts: list[int] = []
        for text in texts:
            cut, n, truncated = self.tokens.truncate(text or " ", self.max_input_tokens)
            if truncated:
                self.usage.add(truncated=1)
            sent.append(cut)
            counts.append(max(n, 1))
        batches: list[list[int]] = []
        current: list[int] = []
        budget = 0
        for i in sorted(range(len(sent)), key=lambda i: counts[i]):
            if current and (len(current) >= self.batch_size or budget + counts[i] > self.max_request_tokens):
                batches.append(current)
                current, budget = [], 0
            current.append(i)
            budget += counts[i]
        if current:
            batches.append(current)
        return sent, batches

    def embed(self, texts: list[str]) -> np.ndarray:
        """One request (with its retries); raises BatchFailedError with the number of tries."""
        import openai

        kwargs = {"dimensions": self._dimensions} if self._dimensions else {}
        tries = 0
        while True:
            tries += 1
            self.usage.add(requests=1)
            try:
                resp = self._client.embeddings.create(model=self._model, input=texts, **kwargs)
                break
            except (openai.RateLimitError, openai.InternalServerError, openai.APIConnectionError) as e:
                # APITimeoutError is an APIConnectionError; InternalServerError is any status >= 500
                if tries > self.max_retries:
                    raise BatchFailedError(self._describe(e), tries, retryable=True) from e
                self.usage.add(retries=1)
                time.sleep(self._delay(tries, retry_after_seconds(getattr(getattr(e, "response", None), "headers", None))))
            except openai.APIStatusError as e:
                raise BatchFailedError(self._describe(e), tries, retryable=False) from e
            except (TypeError, ValueError) as e:  # a 200 whose body the client cannot decode as embeddings
                raise BatchFailedError(f"{self.base_url} answered with something that is not embeddings ({e}): "
                                       "check the server", tries, retryable=False) from e
        data = sorted(resp.data, key=lambda d: d.index)
        if len(data) != len(texts):
            raise BatchFailedError(f"{self.base_url} returned {len(data)} vectors for {len(texts)} inputs", tries, False)
        vectors = self._checked(data, tries)
        used = getattr(resp.usage, "prompt_tokens", None) if resp.usage else None
        self.usage.add(tokens=int(used) if used else sum(self.tokens.count(t) for t in texts))
        self._dim = vectors.shape[1]
        return vectors

    def _checked(self, data: list, tries: int) -> np.ndarray:
        """The batch's vectors, refused (never cached) when the server sent numbers that are not vectors:
        text, rows of different lengths, NaN or infinities, or another dimension than the model's."""
        try:
            vectors = np.asarray([d.embedding for d in data], dtype=np.float32)
        except (TypeError, ValueError) as e:  # ragged rows, or items that are not numbers
            raise BatchFailedError(f"{self.base_url} returned embeddings that are not equal-length lists of numbers "
                                   f"({e}): check the server and the model name", tries, False) from e
        if vectors.ndim != 2 or vectors.shape[1] == 0:
            raise BatchFailedError(f"{self.base_url} returned embeddings of shape {vectors.shape}: check the server",
                                   tries, False)
        bad = int((~np.isfinite(vectors)).any(axis=1).sum())
        if bad:
            raise BatchFailedError(f"{self.base_url} returned {bad} of {len(vectors)} vectors with NaN or infinite "
                                   "values: nothing of this batch was kept; check the server", tries, False)
        if self._dim is not None and vectors.shape[1] != self._dim:
            raise BatchFailedError(f"{self.base_url} returned vectors of dimension {vectors.shape[1]} for "
                                   f"{self._model}, expected {self._dim}: check the model name and `dimensions`",
                                   tries, False)
        return vectors

    def _delay(self, tries: int, retry_after: float | None) -> float:
        backoff = min(self.backoff_max_s, self.backoff_base_s * 2 ** (tries - 1))
        jittered = random.uniform(backoff / 2, backoff)
        if retry_after is not None:
            return max(jittered, min(retry_after, self.max_retry_after_s))
        return jittered

    def _describe(self, e: Exception) -> str:
        import openai

        status = getattr(e, "status_code", None)
        if isinstance(e, openai.AuthenticationError):
            msg = f"{self.base_url} rejected the API key (HTTP 401): set a valid OPENAI_API_KEY"
        elif isinstance(e, openai.APITimeoutError):
            msg = f"the request to {self.base_url} timed out"
        elif isinstance(e, openai.APIConnectionError):
            msg = f"cannot reach {self.base_url}: check OPENAI_BASE_URL / base_url"
        else:
            msg = f"{self.base_url} answered HTTP {status}: {getattr(e, 'message', e)}"
        return msg.replace(self._key, "***")
