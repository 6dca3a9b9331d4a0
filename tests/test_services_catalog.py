"""The release's 22 services with its tool surface, schema quality, and the checked-in catalog.

The counts below are parity with the public release (its 22 mock servers), not a list every
new service must join: a service added from the template needs no change here.
"""

from __future__ import annotations

from pathlib import Path

import jsonschema
import pytest

from vibelife_env.catalog import catalog, to_markdown
from vibelife_env.cli import main as cli_main
from vibelife_env.services.registry import SERVICES, service_class

#: Tool counts of the public release's 22 mock servers (289 in all): parity, not a registry.
RELEASE = {
    "email": 25, "calendar": 7, "notion": 19, "notification_hub": 16, "banking": 11, "brokerage": 12,
    "credit_card": 12, "flight_booking": 12, "hotel_booking": 11, "rail_booking": 9, "car_rental": 13,
    "maps": 8, "weather": 7, "visa_and_advisory": 10, "ecommerce": 16, "delivery_logistics": 12,
    "listing_platform": 15, "review_platform": 14, "content_platform": 16, "legal_search": 13,
    "job_board": 17, "health_tracker": 14,
}  # fmt: skip
DOC = Path(__file__).resolve().parents[1] / "docs" / "tools.md"


def test_every_release_service_has_the_release_tool_counts():
    assert set(RELEASE) <= set(SERVICES)
    counts = {name: len(service_class(name).tools) for name in RELEASE}
    assert counts == RELEASE
    assert sum(counts.values()) == 289


def _all_tools():
    return [(svc, t) for svc, tools in catalog().items() for t in tools]


@pytest.mark.parametrize(
    ("service", "schema"), _all_tools(), ids=lambda v: v if isinstance(v, str) else v["function"]["name"]
)
def test_every_schema_is_complete_and_valid(service, schema):
    fn = schema["function"]
    assert fn["name"].startswith(f"{service}__")
    assert len(fn["name"]) <= 64 and all(c.isalnum() or c in "_-" for c in fn["name"])  # OpenAI name rules
    assert fn["description"].strip()
    params = fn["parameters"]
    jsonschema.Draft202012Validator.check_schema(params)
    assert params["type"] == "object"
    assert set(params["required"]) <= set(params["properties"])
    for pname, ps in params["properties"].items():
        assert ps.get("description", "").strip(), f"{fn['name']}.{pname} has no description"
        assert "type" in ps or "anyOf" in ps or "$ref" in ps, f"{fn['name']}.{pname} has no type"


def test_tools_md_is_current():
    assert DOC.read_text(encoding="utf-8") == to_markdown(catalog()), (
        "docs/tools.md is stale: run `vibelife tools > docs/tools.md`"
    )


def test_cli_tools_json(capsys):
    assert cli_main(["tools", "--service", "weather", "--format", "json"]) == 0
    assert '"weather__' in capsys.readouterr().out
    assert cli_main(["tools", "--service", "nope"]) == 2
    assert "unknown service" in capsys.readouterr().err
