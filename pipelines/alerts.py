"""Run-failure notification: a failed run of this code location is posted to a webhook.

The webhook's URL comes from `$LTM_FAILURE_WEBHOOK`, read when the sensor runs; without it the
sensor skips. It starts running by itself where the variable is set when the definitions load
(else with the other sensors, `$LTM_AUTOMATION`, or from the UI). The body is JSON with a Slack-compatible `text` line plus the run's id, job,
partition and error, posted with the standard library (`urllib`). A webhook URL usually carries
its secret in the path or query, so only its scheme and host are ever logged or put in an error.
A post that fails raises: the tick shows the error and Dagster offers the same run again next tick.
"""

from __future__ import annotations

import json
import os
import urllib.error
import urllib.request
from typing import Any
from urllib.parse import urlsplit

from dagster import DefaultSensorStatus, RunFailureSensorContext, SkipReason, run_failure_sensor

WEBHOOK_ENV = "LTM_FAILURE_WEBHOOK"
POST_TIMEOUT_S = 10.0


class WebhookError(Exception):
    """The failure webhook could not be reached or refused the post."""


def safe_url(url: str) -> str:
    """The URL without what may be secret: `scheme://host[:port]/…` (no user, path or query)."""
    parts = urlsplit(url)
    host = parts.hostname or "?"
    port = f":{parts.port}" if parts.port else ""
    tail = "/…" if parts.path.strip("/") or parts.query else ""
    return f"{parts.scheme}://{host}{port}{tail}"


def failure_payload(run_id: str, job: str, partition: str | None, error: str, ui_url: str | None = None) -> dict[str, Any]:
    """The JSON body posted for one failed run."""
    where = f" (partition {partition})" if partition else ""
    link = f" {ui_url.rstrip('/')}/runs/{run_id}" if ui_url else ""
    first = error.strip().splitlines()[0] if error.strip() else "no error message"
    return {
        "text": f"hybrid-ltm: run {run_id[:8]} of {job}{where} failed: {first}{link}",
        "run_id": run_id, "job": job, "partition": partition, "error": error,
    }


def post_json(url: str, payload: dict[str, Any], timeout_s: float = POST_TIMEOUT_S) -> int:
    """POST `payload` as JSON; the HTTP status, or WebhookError naming only the URL's host."""
    if urlsplit(url).scheme not in ("http", "https"):
        raise WebhookError(f"{WEBHOOK_ENV} must be an http(s) URL, got {safe_url(url)}")
    req = urllib.request.Request(url, data=json.dumps(payload).encode(), method="POST",
                                 headers={"Content-Type": "application/json", "User-Agent": "hybrid-ltm"})
    try:
        with urllib.request.urlopen(req, timeout=timeout_s) as res:  # noqa: S310 (scheme checked above)
            return res.status
    except urllib.error.HTTPError as e:
        raise WebhookError(f"the failure webhook {safe_url(url)} answered HTTP {e.code}: check {WEBHOOK_ENV}") from None
    except (urllib.error.URLError, OSError) as e:
        reason = getattr(e, "reason", e)
        raise WebhookError(f"the failure webhook {safe_url(url)} cannot be reached ({type(reason).__name__}): "
                           f"check {WEBHOOK_ENV} and the network") from None


def make_failure_sensor(status: DefaultSensorStatus) -> object:
    """A run-failure sensor over every run of the instance (the UI's, the daemon's and `ltm ingest`'s)
    that posts to `$LTM_FAILURE_WEBHOOK`. Build it RUNNING where that variable is set."""

    @run_failure_sensor(
        name="run_failure_webhook",
        default_status=status,
        minimum_interval_seconds=30,
        # the home's instance holds only this pipeline's runs; runs made by `ltm ingest` (in-process,
        # without a code location) are matched only this way
        monitor_all_code_locations=True,
        description=f"Posts every failed run (id, job, partition, error) as JSON to the webhook in "
        f"${WEBHOOK_ENV}; skips when it is not set. Only the URL's host is ever logged.",
    )
    def run_failure_webhook(context: RunFailureSensorContext) -> SkipReason | None:
        url = os.environ.get(WEBHOOK_ENV, "").strip()
        if not url:
            return SkipReason(f"${WEBHOOK_ENV} is not set: failed runs are not posted anywhere")
        run = context.dagster_run
        error = context.failure_event.message or ""
        for event in context.get_step_failure_events():
            info = event.step_failure_data.error
            while info is not None and info.cause is not None:  # the error the step's code raised
                info = info.cause
            if info is not None:
                error = f"step {event.step_key}: {info.message.strip()}"
                break
        payload = failure_payload(run.run_id, run.job_name, run.tags.get("dagster/partition"), error,
                                  os.environ.get("LTM_UI_URL"))
        post_json(url, payload)
        context.log.info(f"run {run.run_id} failure posted to {safe_url(url)}")
        return None

    return run_failure_webhook
