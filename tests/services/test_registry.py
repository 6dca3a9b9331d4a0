"""Every registered service, checked the same way; counts come from the registry, not from here."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from vibelife_env.catalog import catalog
from vibelife_env.services.base import Service
from vibelife_env.services.registry import SERVICES, available_services, canonical_name, service_class
from vibelife_env.services.tooling import NAME_SEP

TESTS = Path(__file__).parent
TOOL_NAME = re.compile(r"^[A-Za-z][A-Za-z0-9_-]*$")


@pytest.mark.parametrize("name", sorted(SERVICES))
def test_a_registered_service_imports_names_itself_and_has_its_test_file(name):
    cls = service_class(name)
    assert issubclass(cls, Service) and cls.name == name
    assert cls.tools, f"{name} has no tools"
    assert (TESTS / f"test_{name}.py").is_file(), f"adding a service adds tests/services/test_{name}.py"


@pytest.mark.parametrize("name", sorted(SERVICES))
def test_every_tool_has_a_valid_name_and_a_description(name):
    for tool_name, spec in service_class(name).tools.items():
        assert TOOL_NAME.match(tool_name) and NAME_SEP not in tool_name, tool_name
        assert len(f"{name}{NAME_SEP}{tool_name}") <= 64, tool_name  # OpenAI's limit
        assert spec.description.strip(), tool_name


def test_the_catalog_lists_exactly_the_registered_tools():
    listed = catalog()
    for name in SERVICES:
        assert len(listed[name]) == len(service_class(name).tools)
    assert sum(len(listed[n]) for n in SERVICES) == sum(len(service_class(n).tools) for n in SERVICES)


def test_names_and_availability():
    assert available_services() == list(SERVICES)
    assert canonical_name("flight-booking_mock") == "flight_booking"
    with pytest.raises(KeyError, match="unknown service 'nope'"):
        service_class("nope")
