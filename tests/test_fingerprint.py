"""Instance fingerprints: the proof that a family refactor changed no generated instance."""

from __future__ import annotations

import json

from vibelife_env.fingerprint import PARTS, compare, fingerprints, instance_fingerprint, main

ENV = "VibeLife-career-job-hunt-v0"


def test_an_instance_hashes_the_same_each_time_and_instances_differ_part_by_part() -> None:
    first = instance_fingerprint(ENV, "test", 0)
    assert set(first) == set(PARTS)
    assert instance_fingerprint(ENV, "test", 0) == first
    other = instance_fingerprint(ENV, "train", 0)
    assert {p for p in PARTS if first[p] != other[p]} >= {"timeline", "world", "checks", "workspace"}


def test_compare_names_the_instance_and_part_that_moved() -> None:
    before = fingerprints([ENV], train=range(0))
    after = json.loads(json.dumps(before))
    after[ENV]["test-2"]["world"] = "0" * 16
    del after[ENV]["test-3"]
    lines = compare(before, after)
    assert lines == [
        f"{ENV} test-2 world: {before[ENV]['test-2']['world']} -> {'0' * 16}",
        f"{ENV} test-3: only before",
    ]
    assert compare(before, before) == []


def test_the_command_line_fails_on_a_difference(tmp_path, capsys) -> None:
    base = tmp_path / "base.json"
    assert main(["--family", "job-hunt", "--train", "0:0", "--out", str(base)]) == 0
    data = json.loads(base.read_text())
    data[ENV]["test-1"]["checks"] = "changed"
    base.write_text(json.dumps(data))
    assert (
        main(["--family", "job-hunt", "--train", "0:0", "--out", str(tmp_path / "a.json"), "--compare", str(base)]) == 1
    )
    assert "1 differences" in capsys.readouterr().out


def test_the_policies_part_moves_with_a_verdict_and_not_with_wording(monkeypatch) -> None:
    """A check reworded (its description) moves only ``checks``; a check that judges a policy
    differently moves ``policies`` too."""
    from pathlib import Path

    from vibelife_env.checks import kinds
    from vibelife_env.families.loader import load_family
    from vibelife_env.fingerprint import POLICY_PART
    from vibelife_env.registration import register_family_dir

    template = Path(__file__).resolve().parents[1] / "tasks" / "_template"
    env_id, family = register_family_dir(template), load_family(template)

    def fresh() -> dict[str, str]:
        family._cache.clear()
        return instance_fingerprint(env_id, "test", 0, policies=True)

    before = fresh()
    monkeypatch.setattr(kinds.Quiet, "description", property(lambda self: "Reworded: nothing due, nothing done."))
    reworded = fresh()
    assert {p for p in before if before[p] != reworded[p]} == {"checks"}
    monkeypatch.setattr(kinds.PaidOnce, "holds", lambda self, ctx: True)  # the null agent now earns the payment
    judged = fresh()
    assert judged[POLICY_PART] != before[POLICY_PART]
    family._cache.clear()
