"""Retrieval quality per strategy on a fixture repository with known structure and history.

    .venv/bin/python bench/retrieval_fixture.py [--embedder local|hash] [--json]

Builds the `shop` repository (8 modules, a call graph, 12 commits by 4 authors, 3 bug fixes
with "Fix #N" messages) and a memories file in a temporary folder, ingests both through the real
pipeline (`ltm memory import`, `ltm ingest`), runs a labelled question set (question -> the
entities that answer it, written from the fixture below) and prints recall@5 and MRR per strategy
and per question kind (structural, history, topical, memory).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.builder import RepoBuilder  # noqa: E402

from ltm.home import Home  # noqa: E402
from ltm.lake import Lake  # noqa: E402
from ltm.query import HybridLTM  # noqa: E402
from ltm.retrieval.strategies import STRATEGIES  # noqa: E402

ADA, GRACE = ("Ada Lovelace", "ada@example.com"), ("Grace Hopper", "grace@example.com")
LINUS, BARBARA = ("Linus Torvalds", "linus@example.com"), ("Barbara Liskov", "barbara@example.com")

HTTP = '''"""HTTP helpers."""


def parse_header(header):
    """Split an Authorization header into scheme and credentials."""
    scheme, _, value = header.partition(" ")
    return scheme, value


def read_body(request):
    """The request body as text."""
    return request.body.decode()


def send_response(status, body):
    """Serialise a response with a status code."""
    return {"status": status, "body": body}
'''
HTTP_FIX = HTTP.replace('    scheme, _, value = header.partition(" ")', '    scheme, _, value = (header or "").partition(" ")')
DB = '''"""Database access."""

_POOL = {}


def connect(url):
    """Open a connection to the database at url."""
    return _POOL.setdefault(url, object())


def execute(sql, params):
    """Run one statement with bound parameters."""
    conn = connect("db://main")
    return conn, sql, params


class Repository:
    """Rows of one table."""

    def get(self, key):
        """Load one row by key."""
        return execute("select", [key])

    def save(self, item):
        """Insert or update one row."""
        return execute("upsert", [item])
'''
DB_REFACTOR = DB.replace('    conn = connect("db://main")', '    conn = _POOL.get("db://main") or connect("db://main")')
AUTH = '''"""Tokens."""

import hmac

from shop.http import parse_header


class Validator:
    """Checks signed tokens."""

    def validate_token(self, token):
        """True when the token's signature matches its body."""
        body, _, sig = token.partition(".")
        return hmac.compare_digest(self._sign(body), sig)

    def _sign(self, body):
        return hmac.new(b"k", body.encode(), "sha256").hexdigest()


def require_login(request):
    """The user of an authenticated request."""
    scheme, value = parse_header(request.headers["Authorization"])
    return Validator().validate_token(value)
'''
AUTH_FIX = AUTH.replace('        body, _, sig = token.partition(".")', '        if not token:\n            return False\n        body, _, sig = token.partition(".")')
ORDERS = '''"""Orders API."""

from shop.auth import require_login
from shop.db import Repository
from shop.http import send_response


def create_order(request):
    """Place an order for the logged-in user."""
    user = require_login(request)
    Repository().save({"user": user})
    return send_response(201, "created")


def cancel_order(request):
    """Cancel an order of the logged-in user."""
    require_login(request)
    Repository().get(request.args["id"])
    return send_response(200, "cancelled")
'''
CART = '''"""Shopping cart."""

from shop.db import Repository


def add_item(cart, item):
    """Add an item to the cart."""
    cart.append(Repository().get(item))
    return cart


def total(cart):
    """Sum of the cart's prices."""
    return sum(i.price for i in cart)
'''
CART_FIX = CART.replace("    return sum(i.price for i in cart)", "    return sum(i.price - i.discount for i in cart)")
RETRY = '''"""Retries."""

import time


def backoff(attempt):
    """Seconds to wait before the next attempt."""
    return 0.1 * attempt


def retry(fn, times):
    """Call fn up to times times until it succeeds."""
    for attempt in range(times):
        try:
            return fn()
        except OSError:
            time.sleep(backoff(attempt))
'''
RETRY_FIX = RETRY.replace("    return 0.1 * attempt", "    return min(5.0, 0.1 * 2 ** attempt)")
ERRORS = '''"""Error responses."""

from shop.http import send_response


class ShopError(Exception):
    """A failure the customer can act on."""


def format_error_message(exc):
    """Human readable text for an exception."""
    return f"{type(exc).__name__}: {exc}"


def handle_error(exc):
    """Log the error and turn the exception into an error response."""
    return send_response(500, format_error_message(exc))
'''
PAYMENTS = '''"""Payments."""

from shop.errors import handle_error
from shop.retry import retry


def charge(card, amount):
    """Charge a card, retrying on network failures."""
    try:
        return retry(lambda: card.charge(amount), 3)
    except Exception as exc:
        return handle_error(exc)


def refund(order):
    """Give the money of an order back."""
    return charge(order.card, -order.amount)
'''
PAYMENTS_FIX = PAYMENTS.replace("retry(lambda: card.charge(amount), 3)", "retry(lambda: card.charge(amount, timeout=10), 5)")
MEMORIES = [
    {"id": "m1", "content": "Payments must be idempotent: never charge twice for one order (shop/payments.py)",
     "metadata": {"category": "guideline", "file_path": "shop/payments.py"}},
    {"id": "m2", "content": "Use the connection pool in shop/db.py instead of opening connections per query",
     "metadata": {"category": "architecture", "file_path": "shop/db.py"}},
    {"id": "m3", "content": "Tokens are signed with HMAC SHA-256 and a server-side key",
     "metadata": {"category": "architecture"}},
]


def build_shop(path: Path) -> dict[str, str]:
    """The fixture repository; returns commit name -> sha."""
    b = RepoBuilder(path)
    c = {}
    b.write("shop/__init__.py", "").write("shop/http.py", HTTP)
    c["http"] = b.commit("Add HTTP helpers", author=ADA)
    b.write("shop/db.py", DB)
    c["db"] = b.commit("Add database access layer", author=ADA)
    b.write("shop/auth.py", AUTH)
    c["auth"] = b.commit("feat: token validation", author=GRACE)
    b.write("shop/orders.py", ORDERS)
    c["orders"] = b.commit("Add orders API", author=GRACE)
    b.write("shop/cart.py", CART)
    c["cart"] = b.commit("Add shopping cart", author=BARBARA)
    b.write("shop/retry.py", RETRY).write("shop/payments.py", PAYMENTS)
    c["payments"] = b.commit("Add payments with retry", author=BARBARA)
    b.write("shop/errors.py", ERRORS)
    c["errors"] = b.commit("Add error responses", author=LINUS)
    b.write("shop/auth.py", AUTH_FIX)
    c["fix3"] = b.commit("Fix #3: reject empty tokens in validate_token", author=LINUS)
    b.write("shop/cart.py", CART_FIX)
    c["fix7"] = b.commit("Fix #7: cart total ignores discounts", author=GRACE)
    b.write("shop/db.py", DB_REFACTOR)
    c["refactor"] = b.commit("Refactor execute to reuse pooled connections", author=ADA)
    b.write("shop/retry.py", RETRY_FIX).write("shop/payments.py", PAYMENTS_FIX)
    c["fix9"] = b.commit("Fix #9: retry payments on timeout with exponential backoff", author=BARBARA)
    b.write("shop/http.py", HTTP_FIX)
    c["header"] = b.commit("Handle a missing Authorization header", author=LINUS)
    return c


def labelled(repo: str, c: dict[str, str], mem: dict[str, str]) -> list[tuple[str, str, set[str]]]:
    """(kind, question, expected graph_entity_ids), written from the fixture above."""
    fn = lambda p, q: f"fn:{repo}:shop/{p}.py:{q}"  # noqa: E731
    cm = lambda k: f"commit:{repo}:{c[k]}"  # noqa: E731
    mod = lambda m: f"mod:{repo}:shop.{m}"  # noqa: E731
    return [
        ("structural", "what calls parse_header", {fn("auth", "require_login")}),
        ("structural", "what calls execute", {fn("db", "Repository.get"), fn("db", "Repository.save")}),
        ("structural", "what calls require_login", {fn("orders", "create_order"), fn("orders", "cancel_order")}),
        ("structural", "what calls send_response",
         {fn("orders", "create_order"), fn("orders", "cancel_order"), fn("errors", "handle_error")}),
        ("structural", "what calls retry", {fn("payments", "charge")}),
        ("structural", "what uses module shop.db", {mod("orders"), mod("cart")}),
        ("structural", "what uses module shop.errors", {mod("payments")}),
        ("history", "commits by Barbara", {cm("cart"), cm("payments"), cm("fix9")}),
        ("history", "commits by Linus", {cm("errors"), cm("fix3"), cm("header")}),
        ("history", "how was bug #3 fixed", {cm("fix3")}),
        ("history", "how was bug #7 fixed", {cm("fix7")}),
        ("history", "how was bug #9 fixed", {cm("fix9")}),
        ("history", "who changed validate_token last and why", {cm("fix3")}),
        ("history", "who changed execute last and why", {cm("refactor")}),
        ("history", "who changed parse_header last and why", {cm("header")}),
        ("topical", "functions related to error handling", {fn("errors", "handle_error"), fn("errors", "format_error_message")}),
        ("topical", "how are tokens validated", {fn("auth", "Validator.validate_token")}),
        ("topical", "retry with backoff", {fn("retry", "retry"), fn("retry", "backoff")}),
        ("memory", "memories about file shop/payments.py", {mem["m1"]}),
        ("memory", "memories about file shop/db.py", {mem["m2"]}),
    ]


def score(hits: list[str], expected: set[str], k: int = 5) -> tuple[float, float]:
    """(recall@k, reciprocal rank of the first expected hit)."""
    recall = len(set(hits[:k]) & expected) / len(expected)
    rr = next((1.0 / i for i, h in enumerate(hits, 1) if h in expected), 0.0)
    return recall, rr


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--embedder", default="local", choices=["local", "hash"])
    ap.add_argument("--json", action="store_true", help="Print JSON only.")
    ap.add_argument("--per-question", action="store_true", help="Also print each question's recall@5 and rank per strategy.")
    args = ap.parse_args()
    ltm = str(Path(sys.executable).with_name("ltm"))
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        shas = build_shop(root / "shop")
        notes = root / "notes.jsonl"
        notes.write_text("".join(json.dumps(m) + "\n" for m in MEMORIES), encoding="utf-8")
        home = root / "home"
        env = {**os.environ, "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"}
        subprocess.run([ltm, "ingest", str(root / "shop"), "--home", str(home), "--embedder", args.embedder],
                       check=True, env=env, capture_output=True)
        subprocess.run([ltm, "memory", "import", str(notes), "--home", str(home)], check=True, env=env, capture_output=True)
        subprocess.run([ltm, "ingest", str(root / "shop"), "--home", str(home)], check=True, env=env, capture_output=True)
        memories = Lake(home / "lake").read("Memory", columns=["id", "content"]).to_pylist()
        mem = {m["id"]: next(r["id"] for r in memories if r["content"] == m["content"]) for m in MEMORIES}
        questions = labelled("shop", shas, mem)
        per: dict[str, dict[str, list[tuple[float, float]]]] = defaultdict(lambda: defaultdict(list))
        misses: dict[str, list[str]] = defaultdict(list)
        detail: dict[str, dict[str, list[float]]] = defaultdict(dict)
        with HybridLTM(Home(home)) as memory:
            for strategy in STRATEGIES:
                for kind, q, expected in questions:
                    hits = [h["graph_entity_id"] for h in memory.query(q, strategy=strategy, top_k=10)]
                    r, rr = score(hits, expected)
                    per[strategy][kind].append((r, rr))
                    per[strategy]["all"].append((r, rr))
                    detail[q][strategy] = [round(r, 2), round(rr, 2)]
                    if r < 1.0:
                        misses[strategy].append(q)
    table = {
        s: {kind: {"recall@5": round(sum(r for r, _ in v) / len(v), 3), "mrr": round(sum(x for _, x in v) / len(v), 3), "n": len(v)}
            for kind, v in kinds.items()}
        for s, kinds in per.items()
    }
    base = table["vector_only"]
    beats = {s: {k: table[s][k]["recall@5"] > base[k]["recall@5"] or (table[s][k]["recall@5"] == base[k]["recall@5"] and table[s][k]["mrr"] > base[k]["mrr"])
                 for k in ("structural", "history")} for s in STRATEGIES if s != "vector_only"}
    out = {"embedder": args.embedder, "questions": len(questions), "by_strategy": table,
           **({"per_question": detail} if args.per_question else {}),
           "graph_aware_beat_vector_only": beats, "not_fully_recalled": misses}
    if args.json:
        print(json.dumps(out, indent=2))
        return
    print(f"embedder={args.embedder} questions={len(questions)}")
    print(f"{'strategy':<13}" + "".join(f"{k + ' R@5/MRR':>22}" for k in ("structural", "history", "topical", "memory", "all")))
    for s in STRATEGIES:
        print(f"{s:<13}" + "".join(f"{table[s][k]['recall@5']:>14.3f} /{table[s][k]['mrr']:.3f}" for k in ("structural", "history", "topical", "memory", "all")))
    print("graph-aware beat vector_only on structural and history:", json.dumps(beats))
    print("not fully recalled:", json.dumps(misses, indent=1))
    if args.per_question:
        print(f"{'question (recall@5 / reciprocal rank)':<48}" + "".join(f"{s:>14}" for s in STRATEGIES))
        for q, by in detail.items():
            print(f"{q[:47]:<48}" + "".join(f"{by[s][0]:>8.2f}/{by[s][1]:.2f}" for s in STRATEGIES))


if __name__ == "__main__":
    main()
