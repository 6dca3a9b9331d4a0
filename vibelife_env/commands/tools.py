"""``vibelife tools``: the tool catalog as JSON or Markdown."""

from __future__ import annotations

import argparse
import json

from vibelife_env.catalog import catalog, to_markdown
from vibelife_env.commands import CLIError


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--service", default=None, help="only this service (e.g. email, flight_booking, workspace)")
    p.add_argument("--format", choices=("json", "markdown"), default="markdown")


def main(args: argparse.Namespace) -> int:
    try:
        cat = catalog(args.service)
    except KeyError as exc:
        raise CLIError(f"--service {args.service}: {exc.args[0]}") from None
    print(json.dumps(cat, ensure_ascii=False, indent=2) if args.format == "json" else to_markdown(cat), end="")
    return 0
