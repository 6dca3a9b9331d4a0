"""One local Ray for every test in this folder (tests elsewhere never start Ray)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

ray = pytest.importorskip("ray")


@pytest.fixture(scope="session", autouse=True)
def ray_session() -> Iterator[None]:
    """``ray.init(num_cpus=2)`` once; shut down at the end if this fixture started it."""
    started = not ray.is_initialized()
    if started:
        ray.init(address="local", num_cpus=2, include_dashboard=False, log_to_driver=False)
    yield
    if started:
        ray.shutdown()


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Under pytest-xdist (``--dist loadgroup``) every test of this folder runs on one worker,
    so one local Ray serves them all instead of one per worker."""
    for item in items:
        if "tests/ray/" in item.nodeid:
            item.add_marker(pytest.mark.xdist_group("ray"))
