"""A tiny OpenAI-compatible embeddings server on 127.0.0.1 for tests (no network).

POST /v1/embeddings answers deterministic 1536-dimensional vectors when the bearer token matches;
401 otherwise. Every request's headers are kept so a test can see what the client sent.
"""

from __future__ import annotations

import hashlib
import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

DIM = 1536  # what text-embedding-3-small returns (the query side checks it)


class EmbeddingServer:
    def __init__(self, key: str):
        self.key = key
        self.requests: list[dict] = []
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):  # keep test output quiet
                pass

            def do_POST(self):
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                server.requests.append({"path": self.path, "auth": self.headers.get("Authorization")})
                if self.headers.get("Authorization") != f"Bearer {server.key}":
                    return self._send(401, {"error": {"message": "Incorrect API key provided", "type": "invalid_request_error",
                                                      "code": "invalid_api_key"}})
                texts = body["input"] if isinstance(body["input"], list) else [body["input"]]
                data = []
                for i, t in enumerate(texts):
                    h = hashlib.shake_256(t.encode()).digest(DIM)
                    data.append({"object": "embedding", "index": i, "embedding": [(b - 128) / 128 for b in h]})
                return self._send(200, {"object": "list", "data": data, "model": body["model"],
                                        "usage": {"prompt_tokens": 1, "total_tokens": 1}})

            def _send(self, code, payload):
                raw = json.dumps(payload).encode()
                self.send_response(code)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(raw)))
                self.end_headers()
                self.wfile.write(raw)

        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.base_url = f"http://127.0.0.1:{self._httpd.server_address[1]}/v1"
        self._thread = threading.Thread(target=self._httpd.serve_forever, daemon=True)

    def __enter__(self) -> "EmbeddingServer":
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()
