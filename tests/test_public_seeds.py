"""Every seed and SQL mutation of a local VibeLifeBench checkout loads into our services.

Runs only when ``VIBELIFE_BUNDLES`` points at a checkout's ``eval_set`` (or its root);
nothing from the release is committed here.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
import yaml

from vibelife_env.services.registry import SERVICES, canonical_name

ROOT = os.environ.get("VIBELIFE_BUNDLES")
pytestmark = pytest.mark.skipif(not ROOT, reason="set VIBELIFE_BUNDLES to a VibeLifeBench checkout")


def _bundles() -> list[Path]:
    if not ROOT:
        return []
    return sorted(p.parent for p in Path(ROOT).rglob("task.toml"))


def _sql_files(bundle: Path, service: str) -> list[Path]:
    """Mutation SQL files for one service, in timeline order."""
    files: list[Path] = []
    events = yaml.safe_load((bundle / "event.yaml").read_text(encoding="utf-8"))
    for _, stage_events in sorted(events["stages"].items(), key=lambda kv: int(kv[0])):
        for event in stage_events or []:
            for op in event.get("apply") or []:
                if canonical_name(str(op.get("server", ""))) == service and op.get("sql_file"):
                    files.append(bundle / op["sql_file"])
    return files


@pytest.mark.parametrize("service", sorted(SERVICES))
def test_release_sql_loads(service, make_service):
    loaded = 0
    for bundle in _bundles():
        inits = sorted((bundle / "envs" / service).glob("*/init.sql"))
        if not inits:
            continue
        try:  # on_create, then the seed, then after_seed: the order the world uses
            svc = make_service(service, "\n".join(f.read_text(encoding="utf-8") for f in inits))
        except Exception as exc:
            pytest.fail(f"{inits[0]}: {exc}")
        loaded += 1
        for f in _sql_files(bundle, service):
            try:
                svc.load_sql(f.read_text(encoding="utf-8"))
            except Exception as exc:  # report the file that failed
                pytest.fail(f"{f}: {exc}")
            loaded += 1
    if loaded == 0:
        pytest.skip(f"no bundle uses {service}")
