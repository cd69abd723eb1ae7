"""Step retries against a flaky OpenAI-compatible server on 127.0.0.1: what fails for a while is
retried with backoff; what a retry cannot fix fails at once."""

import shutil
import time

import pytest
from dagster import DagsterEventType, DagsterInstance, Failure, materialize

from assets import bugs, code_entities, commits, doc_memories, embeddings, repository
from ltm.errors import BatchFailedError
from ltm.home import Home
from ltm.repos import register_local
from resources import EmbedderResource, HomeResource
from tests.embed.openai_server import Fault

UPSTREAM = [repository, commits, code_entities, bugs, doc_memories]


def _mined(repo, home_dir):
    home = Home.resolve(home_dir).create()
    key = register_local(home, repo.path)
    instance = DagsterInstance.ephemeral()
    instance.add_dynamic_partitions("repos", [key])
    h = HomeResource(path=str(home_dir))
    assert materialize(UPSTREAM, partition_key=key, instance=instance, resources={"home": h}).success
    return key, instance, h


def _events(result, kind):
    return [e for e in result.all_events if e.event_type == kind]


def test_embeddings_step_is_retried_after_the_server_failed_and_then_succeeds(repo, home_dir, server):
    key, instance, h = _mined(repo, home_dir)
    server.faults = [Fault("500")]  # the embedder gives up at once (max_retries=0): the step fails once
    result = materialize([embeddings], partition_key=key, instance=instance,
                         resources={"home": h, "embedder": EmbedderResource(home=h, provider="openai", max_retries=0)})
    assert result.success
    assert len(_events(result, DagsterEventType.STEP_UP_FOR_RETRY)) == 1
    assert len(_events(result, DagsterEventType.STEP_RESTARTED)) == 1
    assert [r.status for r in server.requests][0] == 500 and server.requests[-1].status == 200
    [mat] = result.asset_materializations_for_node("embeddings")
    assert mat.metadata["dagster/row_count"].value == len(server.embedded()[-1].inputs) > 0


def test_a_refused_key_is_not_retried(repo, home_dir, server):
    key, instance, h = _mined(repo, home_dir)
    server.faults = [Fault("401")]
    with pytest.raises(Failure, match="401") as failed:
        materialize([embeddings], partition_key=key, instance=instance,
                    resources={"home": h, "embedder": EmbedderResource(home=h, provider="openai", max_retries=0)})
    assert isinstance(failed.value.__cause__, BatchFailedError) and not failed.value.__cause__.retryable
    assert len(server.requests) == 1  # one try, no step retry


def test_a_missing_local_repository_fails_at_once_without_retries(home_dir, repo):
    home = Home.resolve(home_dir).create()
    key = register_local(home, repo.path)
    instance = DagsterInstance.ephemeral()
    instance.add_dynamic_partitions("repos", [key])
    shutil.rmtree(repo.path)
    started = time.monotonic()
    result = materialize([repository], partition_key=key, instance=instance,
                         resources={"home": HomeResource(path=str(home_dir))}, raise_on_error=False)
    assert not result.success
    assert _events(result, DagsterEventType.STEP_UP_FOR_RETRY) == []
    assert time.monotonic() - started < 30
    [failure] = _events(result, DagsterEventType.STEP_FAILURE)
    assert str(repo.path) in failure.event_specific_data.error.to_string()

