"""Stable identities: graph_entity_id for nodes and vector_id for vector rows.

Both are pure functions of what they name, so a re-run writes the same ids and an update replaces
the row instead of adding one.
"""

from __future__ import annotations

import hashlib
import re

_REPO_KEY = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$")


def is_valid_repo_key(key: str) -> bool:
    """True for keys safe as a partition key, a folder name and a filter literal."""
    return bool(_REPO_KEY.match(key)) and ".." not in key


def repo_key_from_name(name: str) -> str:
    """A readable repository key from a folder or URL name: lower case, [a-z0-9._-] only."""
    key = re.sub(r"[^A-Za-z0-9._-]+", "-", name.strip()).strip("-.").lower()
    key = re.sub(r"\.{2,}", ".", key)  # `..` is refused in a key (it is also a folder name)
    key = key.removesuffix(".git")
    return key or "repo"


def vector_id(graph_entity_id: str) -> str:
    """`vec_` + a short hash of the graph entity id."""
    return "vec_" + hashlib.sha1(graph_entity_id.encode("utf-8")).hexdigest()[:20]


def text_hash(text: str) -> str:
    """Content hash of an embedding input (the cache key together with the model)."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def repository_id(repo: str) -> str:
    return f"repo:{repo}"


def commit_id(repo: str, sha: str) -> str:
    return f"commit:{repo}:{sha}"


def file_id(repo: str, path: str) -> str:
    return f"file:{repo}:{path}"


def module_id(repo: str, name: str) -> str:
    return f"mod:{repo}:{name}"


def class_id(repo: str, path: str, qualified_name: str) -> str:
    return f"cls:{repo}:{path}:{qualified_name}"


def function_id(repo: str, path: str, qualified_name: str) -> str:
    return f"fn:{repo}:{path}:{qualified_name}"


def bug_id(repo: str, ref: str) -> str:
    return f"bug:{repo}:{ref}"


def memory_id(source: str, mem_id: str) -> str:
    return f"mem:{source}:{mem_id}"


def file_version_id(path: str, blob_id: str | None) -> str:
    """A file as a conversation saw it: `fver:<path>@<blob id>`, or `fver:<path>` without content."""
    return f"fver:{path}@{blob_id}" if blob_id else f"fver:{path}"
