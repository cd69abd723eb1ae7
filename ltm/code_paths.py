"""What part of a repository a path is: the package's own code, or tests, examples, docs,
benchmarks and vendored code around it. Retrieval ranks the package first and the linker prefers
a package definition of a name; both read this one rule. A definition inside a module named for its
tests (Rust's `#[cfg(test)] mod tests { ... }` in a package file: `tests.finds`) is test code too."""

from __future__ import annotations

import re

AUXILIARY_PATTERN = (
    r"(?i)(?:^|/)(?:tests?|testing|__tests__|spec|specs|examples?|samples?|demos?|docs?|documentation|benchmarks?|"
    r"bench|vendor|vendored|third_party|node_modules|fixtures?)(?:/|$)|"
    r"(?:^|/)(?:test_[^/]*|[^/]*_test\.[a-z]+|[^/]*\.(?:test|spec)\.[jt]sx?|conftest\.py)$|"
    # .NET's test and benchmark projects beside the package's: `Src/Newtonsoft.Json.Tests/`, `Foo.UnitTests/`
    r"(?:^|/)[^/]+\.(?:tests?|unittests?|integrationtests?|functionaltests?|fuzztests?|specs?|benchmarks?)/"
)
_AUX = re.compile(AUXILIARY_PATTERN)


def is_auxiliary(path: str) -> bool:
    """Whether a path is tests, examples, docs, benchmarks or vendored code rather than the package."""
    return bool(path) and bool(_AUX.search(path))


# a test module inside a package file, as a qualified name shows it: `tests.finds`, `fmt_tests.parse_empty`
_TEST_SCOPE = re.compile(r"(?:^|\.)(?:tests?|\w+_tests?)\.")


def is_auxiliary_entity(path: str, qualified: str | None) -> bool:
    """Whether a definition is tests, examples, docs, benchmarks or vendored code: by its file's path, or by a
    test module around it in a package file (`src/walk.rs`'s `tests.finds`)."""
    return is_auxiliary(path) or bool(qualified and _TEST_SCOPE.search(qualified))
