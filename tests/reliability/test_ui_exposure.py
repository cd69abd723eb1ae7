"""`ltm ui` never serves its unauthenticated UI beyond this machine by accident."""

from __future__ import annotations

import pytest

from tests.reliability.harness import ltm


@pytest.mark.parametrize("host", ["0.0.0.0", "::", "192.0.2.10", "example.org"])
def test_a_non_loopback_host_is_refused_without_the_explicit_flag(tmp_path, host):
    res = ltm("ui", "--host", host, "--home", tmp_path / "home", check=False, timeout=60)
    assert res.returncode == 2 and "no login" in res.stderr and "--allow-unauthenticated" in res.stderr
    assert "Traceback" not in res.stderr and not (tmp_path / "home").exists()
