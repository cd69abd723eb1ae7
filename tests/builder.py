"""A small builder of real git repositories for tests: fixed authors and dates, no network."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

AUTHOR = ("Ada Lovelace", "ada@example.com")
BASE_TIME = 1_700_000_000  # 2023-11-14T22:13:20Z


class RepoBuilder:
    """Write files, commit with a fixed author and a clock that advances one hour per commit."""

    def __init__(self, path: Path, branch: str = "main"):
        self.path = Path(path)
        self.path.mkdir(parents=True, exist_ok=True)
        self._tick = 0
        self.git("init", "-q", "-b", branch)

    def git(self, *args: str, env: dict[str, str] | None = None) -> str:
        full_env = {
            **os.environ,
            "GIT_CONFIG_GLOBAL": os.devnull,
            "GIT_CONFIG_NOSYSTEM": "1",
            **(env or {}),
        }
        res = subprocess.run(["git", *args], cwd=self.path, env=full_env, capture_output=True, check=True)
        return res.stdout.decode("utf-8", errors="replace").strip()

    def write(self, rel: str | bytes, content: str | bytes) -> "RepoBuilder":
        target = self.path / os.fsdecode(rel)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(content.encode("utf-8") if isinstance(content, str) else content)
        return self

    def delete(self, rel: str) -> "RepoBuilder":
        self.git("rm", "-q", rel)
        return self

    def commit(
        self, message: str, author: tuple[str, str] = AUTHOR, tz: str = "+0000", when: int | None = None
    ) -> str:
        """Stage everything and commit; returns the new sha."""
        self._tick += 1
        stamp = f"{when if when is not None else BASE_TIME + 3600 * self._tick} {tz}"
        env = {
            "GIT_AUTHOR_NAME": author[0], "GIT_AUTHOR_EMAIL": author[1], "GIT_AUTHOR_DATE": stamp,
            "GIT_COMMITTER_NAME": author[0], "GIT_COMMITTER_EMAIL": author[1], "GIT_COMMITTER_DATE": stamp,
        }
        self.git("add", "-A")
        self.git("commit", "-q", "--allow-empty", "-m", message, env=env)
        return self.head()

    def head(self) -> str:
        return self.git("rev-parse", "HEAD")

    def checkout(self, *args: str) -> "RepoBuilder":
        self.git("checkout", "-q", *args)
        return self

    def merge(self, branch: str, message: str) -> str:
        self._tick += 1
        stamp = f"{BASE_TIME + 3600 * self._tick} +0000"
        env = {
            "GIT_AUTHOR_NAME": AUTHOR[0], "GIT_AUTHOR_EMAIL": AUTHOR[1], "GIT_AUTHOR_DATE": stamp,
            "GIT_COMMITTER_NAME": AUTHOR[0], "GIT_COMMITTER_EMAIL": AUTHOR[1], "GIT_COMMITTER_DATE": stamp,
        }
        self.git("merge", "-q", "--no-ff", "-m", message, branch, env=env)
        return self.head()


SAMPLE_AUTH = '''"""Token handling for the service."""

import hashlib


class TokenError(Exception):
    """Raised when a token is malformed."""


class Validator:
    """Checks tokens against a secret."""

    def __init__(self, secret):
        self.secret = secret

    def validate_token(self, token):
        """Return True when the token's signature matches."""
        body, _, sig = token.partition(".")
        return self._sign(body) == sig

    def _sign(self, body):
        return hashlib.sha256((body + self.secret).encode()).hexdigest()


def parse_header(header):
    """Split an Authorization header into scheme and token."""
    scheme, _, token = header.partition(" ")

    def clean(value):
        return value.strip()

    return clean(scheme), clean(token)
'''

SAMPLE_UTIL = '''def retry(times):
    """Retry a call a number of times."""
    return times
'''


def sample_repo(path: Path) -> RepoBuilder:
    """A two-commit Python project used by the pipeline tests."""
    b = RepoBuilder(path)
    b.write("README.md", "# sample\n").write("app/__init__.py", "").write("app/util.py", SAMPLE_UTIL)
    b.commit("Add util module")
    b.write("app/auth.py", SAMPLE_AUTH)
    b.commit("feat: token validation", author=("Grace Hopper", "grace@example.com"), tz="+0200")
    return b
