"""Secrets out of everything we store: well-known key formats replaced by `[redacted:<kind>]`.

A secret committed to a repository (a cloud key in a diff, a token in a commit message, a private
key in a docstring) would otherwise be copied into the lake, embedded, indexed and returned to
whoever queries. Every table is redacted as the lake writes it (`LakeWriter`), and memories when
their row is made (an online add embeds before it writes), so the graph, the vectors and the
embedding cache, all derived from those rows, never see one. Replacement is deterministic, so
an id that happened to contain a secret is redacted the same way in every table and still joins.

One pass per string column finds the rows with any match (Arrow's RE2, over the whole column);
only those rows go through Python's `re`, one pattern at a time, counting what each replaced.
Patterns name the part to hide with a group `s` where the surroundings are worth keeping
(`password = "[redacted:password]"`). Set `redact_secrets: false` in the home's `settings.json`
to keep text verbatim.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc


@dataclass(frozen=True)
class SecretFormat:
    kind: str
    pattern: str  # valid for both Python's re and RE2: no look-around, no back-references


FORMATS: tuple[SecretFormat, ...] = (
    SecretFormat("private-key", r"-----BEGIN[A-Z ]* PRIVATE KEY(?: BLOCK)?-----(?:[\s\S]*?-----END[A-Z ]* PRIVATE KEY(?: BLOCK)?-----|[A-Za-z0-9+/=\s\\]*)"),
    SecretFormat("aws-access-key", r"\b(?:AKIA|ASIA|ABIA|ACCA|AGPA|AIDA|AROA|ANPA|ANVA|APKA)[0-9A-Z]{16}\b"),
    SecretFormat("aws-secret-key", r"(?i)aws_?secret_?(?:access_?)?key[\"']?\s*[:=]\s*[\"']?(?P<s>[A-Za-z0-9/+=]{40})\b"),
    SecretFormat("github-token", r"\bgh[pousr]_[A-Za-z0-9]{36,255}\b"),
    SecretFormat("github-fine-grained-token", r"\bgithub_pat_[A-Za-z0-9_]{22,255}\b"),
    SecretFormat("gitlab-token", r"\bglpat-[A-Za-z0-9_-]{20,}"),
    SecretFormat("slack-token", r"\bxox[abeoprs]-[A-Za-z0-9-]{10,}"),
    SecretFormat("slack-webhook", r"https://hooks\.slack\.com/(?:services|workflows)/[A-Za-z0-9_/+-]{20,}"),
    SecretFormat("discord-webhook", r"https://(?:canary\.|ptb\.)?discord(?:app)?\.com/api/webhooks/[0-9]+/[A-Za-z0-9_-]{20,}"),
    SecretFormat("stripe-key", r"\b(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{16,}\b"),
    SecretFormat("google-api-key", r"\bAIza[0-9A-Za-z_-]{35}"),
    SecretFormat("google-oauth-secret", r"\bGOCSPX-[A-Za-z0-9_-]{28}"),
    SecretFormat("anthropic-key", r"\bsk-ant-[A-Za-z0-9_-]{32,}"),
    SecretFormat("openai-key", r"\bsk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{32,}"),
    SecretFormat("huggingface-token", r"\bhf_[A-Za-z0-9]{34,}\b"),
    SecretFormat("npm-token", r"\bnpm_[A-Za-z0-9]{36}\b"),
    SecretFormat("pypi-token", r"\bpypi-AgEIcHlwaS5vcmc[A-Za-z0-9_-]{50,}"),
    SecretFormat("jwt", r"\beyJ[A-Za-z0-9_-]{10,}\.eyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}"),
    SecretFormat("twilio-key", r"\bSK[0-9a-f]{32}\b"),
    SecretFormat("sendgrid-key", r"\bSG\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43}\b"),
    SecretFormat("mailgun-key", r"\bkey-[0-9a-zA-Z]{32}\b"),
    SecretFormat("mailchimp-key", r"\b[0-9a-f]{32}-us[0-9]{1,2}\b"),
    SecretFormat("digitalocean-token", r"\bdo[opr]_v1_[a-f0-9]{64}\b"),
    SecretFormat("shopify-token", r"\bshp(?:at|ca|pa|ss)_[a-fA-F0-9]{32}\b"),
    SecretFormat("square-token", r"\bsq0(?:atp|csp)-[0-9A-Za-z_-]{22,43}"),
    SecretFormat("telegram-bot-token", r"\b[0-9]{8,10}:AA[0-9A-Za-z_-]{33}"),
    SecretFormat("databricks-token", r"\bdapi[0-9a-f]{32}\b"),
    SecretFormat("azure-storage-key", r"(?i)AccountKey=(?P<s>[A-Za-z0-9+/]{80,}={0,2})"),
    SecretFormat("heroku-key", r"(?i)heroku[a-z_ -]{0,20}(?:key|token)[\"']?\s*[:=]\s*[\"']?(?P<s>[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})"),
    SecretFormat("url-password", r"\b[a-zA-Z][a-zA-Z0-9+.-]{1,20}://[^\s:/@\"']{1,64}:(?P<s>[^\s:/@\"']{3,128})@"),
    SecretFormat("authorization-header", r"(?i)authorization[\"']?\s*[:=]\s*[\"']?(?:basic|bearer|token)\s+(?P<s>[A-Za-z0-9._~+/=-]{16,})"),
    SecretFormat("password", r"(?i)\b(?:password|passwd|pwd|secret|secret_?key|api_?key|apikey|access_?token|auth_?token|client_?secret)[\"']?\s*[:=]\s*[\"'](?P<s>[^\"'\s]{6,})[\"']"),
    SecretFormat("env-secret", r"\b[A-Z0-9_]*(?:PASSWORD|PASSWD|SECRET|TOKEN|API_KEY|APIKEY)[A-Z0-9_]*=(?P<s>[A-Za-z0-9_+/=-]{8,})\b"),
)

_COMPILED = [(f.kind, re.compile(f.pattern)) for f in FORMATS]
# RE2 has no inline flags mid-pattern: make the whole alternation case-insensitive only where a
# format asks, by lowering nothing and keeping each format's own (?i) at its start.
_ANY = "|".join(f"(?:{f.pattern})" if not f.pattern.startswith("(?i)") else f"(?i:{f.pattern[4:]})" for f in FORMATS)
_ANY_RE2 = re.sub(r"\(\?P<s>", "(", _ANY)  # RE2 takes named groups, but one name may appear only once
MARK = "[redacted:{kind}]"


def summary_note(counts: dict[str, int]) -> str:
    """` redacted=N` for a stage's summary line when it replaced any secret, else nothing."""
    return f" redacted={sum(counts.values())}" if counts else ""


def redact_text(text: str, counts: Counter | None = None) -> str:
    """`text` with every known secret replaced by its marker; `counts[kind]` grows per replacement."""
    for kind, rx in _COMPILED:
        mark = MARK.format(kind=kind)

        def hide(m: re.Match, mark: str = mark, kind: str = kind) -> str:
            if counts is not None:
                counts[kind] += 1
            if "s" in rx.groupindex and m.group("s") is not None:
                start, end = m.span("s")
                return m.group(0)[: start - m.start()] + mark + m.group(0)[end - m.start():]
            return mark

        text = rx.sub(hide, text)
    return text


def redact_row(row: dict[str, Any], counts: Counter | None = None) -> dict[str, Any]:
    """A copy of `row` with every text value redacted (lists of text too)."""
    out = {}
    for k, v in row.items():
        if isinstance(v, str):
            v = redact_text(v, counts)
        elif isinstance(v, list) and all(isinstance(x, str) for x in v):
            v = [redact_text(x, counts) for x in v]
        out[k] = v
    return out


def _is_text(t: pa.DataType) -> bool:
    return pa.types.is_string(t) or pa.types.is_large_string(t)


def _redact_values(values: list, hits: list, counts: Counter, t: pa.DataType) -> pa.ChunkedArray:
    if pa.types.is_list(t) or pa.types.is_large_list(t):
        out = [None if v is None else [redact_text(x, counts) if x is not None else None for x in v] for v in values]
    else:
        out = [redact_text(v, counts) if h else v for v, h in zip(values, hits)]
    return pa.chunked_array([pa.array(out, type=t)])


def redact_table(table: pa.Table, counts: Counter) -> pa.Table:
    """`table` with every string column (and list of strings) redacted; replacements added to `counts`.

    One RE2 search over all of the table's text at once finds the rows to fix: each search call
    compiles the 33 formats anew (about 9 ms), so it is made once per table, not once per column.
    """
    cols = []
    for i, field in enumerate(table.schema):
        t = field.type
        is_list = pa.types.is_list(t) or pa.types.is_large_list(t)
        if _is_text(t) or (is_list and _is_text(t.value_type)):
            col = table.column(i)
            flat = pc.list_flatten(col) if is_list else col
            cols.append((i, field, flat.combine_chunks().cast(pa.large_string())))
    if table.num_rows == 0 or not cols:
        return table
    hits = pc.match_substring_regex(pa.concat_arrays([a for _, _, a in cols]), _ANY_RE2)
    if not pc.any(hits).as_py():
        return table
    offset = 0
    for i, field, flat in cols:
        mask = hits.slice(offset, len(flat))
        offset += len(flat)
        if pc.any(mask).as_py():
            col = table.column(i)
            table = table.set_column(i, field, _redact_values(col.to_pylist(), mask.to_pylist(), counts, field.type))
    return table
