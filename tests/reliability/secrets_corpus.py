"""Fake secrets in 33 well-known formats, each in a line of the kind that leaks one into a repository.

Built from pieces at import time (no literal key in the source). `SECRETS[kind] = (secret, line)`:
`secret` must never be stored, `line` is how it appears in code, a message or a document.
"""

from __future__ import annotations

import base64
import hashlib


def _hex(seed: str, n: int) -> str:
    return (hashlib.sha256(seed.encode()).hexdigest() * 4)[:n]


def _alnum(seed: str, n: int) -> str:
    raw = base64.b64encode(hashlib.sha512(seed.encode()).digest() * 4).decode()
    return "".join(c for c in raw if c.isalnum())[:n]


def _upper(seed: str, n: int) -> str:
    return "".join(c for c in _alnum(seed, 4 * n).upper() if c.isalnum())[:n]


PEM = "-----BEGIN RSA PRIVATE KEY-----\n" + "\n".join(_alnum(f"pem{i}", 64) for i in range(5)) + "\n-----END RSA PRIVATE KEY-----"
JWT = "eyJ" + _alnum("jwt-h", 20) + ".eyJ" + _alnum("jwt-p", 40) + "." + _alnum("jwt-s", 43)

SECRETS: dict[str, tuple[str, str]] = {
    "private-key": (PEM, PEM),
    "aws-access-key": (s := "AKIA" + _upper("aws", 16), f'AWS_ACCESS_KEY_ID = "{s}"'),
    "aws-secret-key": (s := _alnum("awssecret", 40), f"aws_secret_access_key = {s}"),
    "github-token": (s := "ghp_" + _alnum("gh", 36), f"token: {s}"),
    "github-fine-grained-token": (s := "github_pat_" + _alnum("ghpat", 60), f"use {s} for the API"),
    "gitlab-token": (s := "glpat-" + _alnum("gl", 20), f"GITLAB={s}"),
    "slack-token": (s := "xoxb-" + "-".join(_alnum(f"sl{i}", 12) for i in range(3)), f"slack_client('{s}')"),
    "slack-webhook": (s := "https://hooks.slack.com/services/T" + _upper("t", 8) + "/B" + _upper("b", 8) + "/" + _alnum("w", 24), f"post to {s}"),
    "discord-webhook": (s := "https://discord.com/api/webhooks/123456789012345678/" + _alnum("dw", 68), f"hook = {s}"),
    "stripe-key": (s := "sk_live_" + _alnum("stripe", 24), f"stripe.api_key = {s}"),
    "google-api-key": (s := "AIza" + _alnum("google", 35), f"GOOGLE_KEY: {s}"),
    "google-oauth-secret": (s := "GOCSPX-" + _alnum("gocspx", 28), f"client {s}"),
    "anthropic-key": (s := "sk-ant-api03-" + _alnum("ant", 90), f"client = Anthropic(api_key={s})"),
    "openai-key": (s := "sk-proj-" + _alnum("oai", 48), f"openai.api_key = {s}"),
    "huggingface-token": (s := "hf_" + _alnum("hf", 34), f"login({s})"),
    "npm-token": (s := "npm_" + _alnum("npm", 36), f"//registry.npmjs.org/:_authToken={s}"),
    "pypi-token": (s := "pypi-AgEIcHlwaS5vcmc" + _alnum("pypi", 70), f"password: {s}"),
    "jwt": (JWT, f"Cookie: session={JWT}"),
    "twilio-key": (s := "SK" + _hex("twilio", 32), f"twilio key {s}"),
    "sendgrid-key": (s := "SG." + _alnum("sg1", 22) + "." + _alnum("sg2", 43), f"SENDGRID {s}"),
    "mailgun-key": (s := "key-" + _alnum("mailgun", 32), f"mailgun {s}"),
    "mailchimp-key": (s := _hex("mailchimp", 32) + "-us14", f"mailchimp {s}"),
    "digitalocean-token": (s := "dop_v1_" + _hex("do", 64), f"doctl auth {s}"),
    "shopify-token": (s := "shpat_" + _hex("shopify", 32), f"shop {s}"),
    "square-token": (s := "sq0atp-" + _alnum("square", 22), f"square {s}"),
    "telegram-bot-token": (s := "1234567890:AA" + _alnum("tg", 33), f"bot = Bot('{s}')"),
    "databricks-token": (s := "dapi" + _hex("databricks", 32), f"DATABRICKS {s}"),
    "azure-storage-key": (s := _alnum("azure", 86) + "==", f"DefaultEndpointsProtocol=https;AccountName=x;AccountKey={s};"),
    "heroku-key": (s := "01234567-89ab-4cde-8f01-" + _hex("heroku", 12), f"HEROKU_API_KEY = '{s}'"),
    "url-password": (s := "pw" + _alnum("dbpw", 14), f"DATABASE_URL = 'postgres://admin:{s}@db.internal:5432/app'"),
    "authorization-header": (s := _alnum("bearer", 40), f'headers = {{"Authorization": "Bearer {s}"}}'),
    "password": (s := "pw-" + _alnum("pw", 14), f'password = "{s}"'),
    "env-secret": (s := _alnum("env", 24), f"export DEPLOY_TOKEN={s}"),
}
