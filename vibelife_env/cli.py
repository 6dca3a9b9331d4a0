"""The ``vibelife`` command line.

Each subcommand lives in ``vibelife_env/commands/<name>.py`` and provides
``add_arguments(parser)`` and ``main(args) -> int``; modules are imported only when their
command runs, so ``vibelife --help`` stays fast.
"""

from __future__ import annotations

import argparse
import importlib
import sys
import warnings

#: subcommand → (module, one-line help)
COMMANDS: dict[str, tuple[str, str]] = {
    "run": ("vibelife_env.commands.run", "run one episode with a built-in agent and print the score table"),
    "list": ("vibelife_env.commands.list_envs", "list registered environments (own tasks and --bundles PATH)"),
    "tools": ("vibelife_env.commands.tools", "print the tool catalog of the services"),
    "validate": ("vibelife_env.commands.validate", "run oracle and baselines over own tasks and enforce thresholds"),
    "stats": ("vibelife_env.commands.stats", "task statistics: stages, horizon, events by kind, checks by tier"),
    "rollout": ("vibelife_env.commands.rollout", "generate a JSONL rollout dataset (optionally with Ray workers)"),
    "eval": ("vibelife_env.commands.evaluate", "evaluate an agent over attempts and write an HTML/JSON report"),
    "serve": ("vibelife_env.commands.serve", "serve a live episode over MCP or OpenEnv for agent harnesses"),
    "play": ("vibelife_env.commands.play", "play an episode one action per call (new, step, show, score)"),
}


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The top-level parser; only ``command``'s module is imported to add its arguments."""
    from vibelife_env.env import VERSION

    parser = argparse.ArgumentParser(prog="vibelife", description="VibeLife: living-world RL environments")
    parser.add_argument("--version", action="version", version=f"vibelife {VERSION}")
    parser.add_argument("--debug", action="store_true", help="show the full traceback of an error")
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--debug", action="store_true", default=argparse.SUPPRESS, help="show tracebacks")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name, (module_name, help_text) in COMMANDS.items():
        p = sub.add_parser(name, help=help_text, description=help_text, parents=[common])
        p.set_defaults(_module=module_name)
        if name != command:
            continue
        try:
            module = importlib.import_module(module_name)
        except ModuleNotFoundError as exc:
            if exc.name != module_name:
                raise
            p.set_defaults(_missing=True)
            continue
        module.add_arguments(p)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Entry point of ``vibelife``; returns the exit status.

    A mistake the user can fix (see :class:`vibelife_env.commands.CLIError`) prints one line
    on stderr and returns 2; any other error prints one line and returns 1. With
    ``--debug`` errors propagate with their traceback. Ctrl-C returns 130.
    """
    argv = list(sys.argv[1:] if argv is None else argv)
    warnings.formatwarning = _one_line_warning
    command = next((a for a in argv if not a.startswith("-")), None)
    parser = build_parser(command if command in COMMANDS else None)
    args = parser.parse_args(argv)
    if not args.command:
        parser.print_help()
        return 2
    if getattr(args, "_missing", False):
        print(f"vibelife {args.command}: not available in this installation", file=sys.stderr)
        return 2
    try:
        return int(importlib.import_module(args._module).main(args) or 0)
    except KeyboardInterrupt:
        if args.debug:
            raise
        print(f"vibelife {args.command}: interrupted", file=sys.stderr)
        return 130
    except SystemExit as exc:
        if args.debug or not isinstance(exc.code, str):
            raise
        print(f"vibelife {args.command}: error: {exc.code}", file=sys.stderr)
        return 2
    except Exception as exc:
        if args.debug:
            raise
        from vibelife_env.commands import user_error

        message = user_error(exc)
        if message is not None:
            print(f"vibelife {args.command}: error: {message}", file=sys.stderr)
            return 2
        text = " ".join(str(exc).split()) or "(no message)"
        print(
            f"vibelife {args.command}: error: {type(exc).__name__}: {text} (`vibelife --debug ...` shows the traceback)",
            file=sys.stderr,
        )
        return 1


def _one_line_warning(message: Warning | str, category: type[Warning], *_: object, **__: object) -> str:
    """A warning on the command line: one line, no source excerpt."""
    return f"warning: {message}\n"


if __name__ == "__main__":
    sys.exit(main())
