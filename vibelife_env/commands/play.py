"""``vibelife play``: an episode driven one action per shell call, by a person or a command-line agent.

::

    vibelife play new VibeLife-travel-japan-v0 run1        # prints the system prompt and the first event
    vibelife play step run1 '{"tool_calls": [{"name": "workspace__read_file", "arguments": {"path": "USER.md"}}]}'
    vibelife play step run1 @action.json                    # or - to read the action from stdin
    vibelife play step run1 '{"reply": "Booked, details in the itinerary."}'
    vibelife play show run1                                 # the open turn again, and the calls left
    vibelife play score run1                                # after the end: the score and every check

``DIR`` holds the session: ``session.json`` (env id, instance, seed, every accepted
action), ``state.pkl`` (the episode's snapshot after the last step), ``tools.md`` (the
tools, for reading) and, once the episode is over, ``trajectory.json`` (the episode as a
replayable fixture: ``env_id``, ``instance``, ``level``, ``reset_seed``, ``actions``, the score).
While the episode runs nothing about grading is printed. A bad action prints one line,
exits with status 2 and changes nothing.
"""

from __future__ import annotations

import argparse
import json
import pickle
import sys
from pathlib import Path
from typing import Any

import gymnasium as gym

import vibelife_env
from vibelife_env.commands import CLIError, check_env_ids, register_bundle_dir
from vibelife_env.env import VibeLifeEnv, base_env
from vibelife_env.errors import ActionError

SESSION = "session.json"
STATE = "state.pkl"
TOOLS = "tools.md"
PROMPT = "system.md"
TRAJECTORY = "trajectory.json"
#: How ``step`` reads an action: said on ``new``'s first screen and kept in ``system.md`` with the
#: system prompt, since a player who sends text with tool calls must know whether it reached the user.
ACTION_FORMS = """How to act (one assistant message per `vibelife play step DIR ACTION`):
- {"tool_calls": [{"name": "<service>__<tool>", "arguments": {...}}]}: run the calls; the turn stays open
  and you see their results.
- {"reply": "text to the user"}: your reply; it ends the turn ("" ends it in silence). A message may hold
  both: {"tool_calls": [...], "reply": "..."} runs the calls, then ends the turn with the reply.
- OpenAI form: {"role": "assistant", "content": "...", "tool_calls": [...]}. With tool calls, content is
  narration that the user never sees and the turn stays open (add "end_turn": true to make it the reply);
  without tool calls, content is the reply.
- A bare JSON string is a reply."""


def add_arguments(p: argparse.ArgumentParser) -> None:
    sub = p.add_subparsers(dest="play_command", metavar="ACTION", required=True)
    new = sub.add_parser("new", help="start an episode in DIR: print the system prompt and the first event")
    new.add_argument("env_id", help="a registered env id (`vibelife list`)")
    new.add_argument("dir", help="the session folder (created; must be empty or absent)")
    new.add_argument("--instance", type=int, default=None, help="a family's instance (test 0-3, or a train seed)")
    new.add_argument("--split", choices=("test", "train"), default=None, help="a family's split (default test)")
    new.add_argument(
        "--level", choices=("guided", "paper"), default=None, help="a family's level (default: the family's own)"
    )
    new.add_argument("--seed", type=int, default=0, help="reset seed (default 0)")
    new.add_argument("--bundles", default=None, help="also register the bundles under this directory")
    step = sub.add_parser("step", help="apply one assistant message; print the results and what comes next")
    step.add_argument("dir", help="the session folder")
    step.add_argument("action", help="the action as JSON, @FILE for a JSON file, or - for stdin")
    show = sub.add_parser("show", help="print the open turn's event and the calls left")
    show.add_argument("dir", help="the session folder")
    show.add_argument("--prompt", action="store_true", help="print the system prompt (its limits) first")
    score = sub.add_parser("score", help="after the end: the score and every check with its reason")
    score.add_argument("dir", help="the session folder")
    score.add_argument("--failed", action="store_true", help="list only the checks that failed")


# ----------------------------------------------------------------------------- session
def _load(folder: Path) -> tuple[dict[str, Any], VibeLifeEnv, gym.Env]:
    path = folder / SESSION
    if not path.is_file():
        raise CLIError(f"{folder}: no play session here (start one with `vibelife play new ENV_ID {folder}`)")
    session = json.loads(path.read_text(encoding="utf-8"))
    if session.get("bundles"):
        register_bundle_dir(session["bundles"])
    env = gym.make(session["env_id"], **session["make"])
    with (folder / STATE).open("rb") as fh:
        snapshot = pickle.load(fh)
    env.reset(options={"snapshot": snapshot})
    return session, base_env(env), env


def _save(folder: Path, session: dict[str, Any], base: VibeLifeEnv) -> None:
    tmp = folder / (STATE + ".tmp")
    with tmp.open("wb") as fh:
        pickle.dump(base.snapshot(), fh, protocol=pickle.HIGHEST_PROTOCOL)
    tmp.replace(folder / STATE)
    (folder / SESSION).write_text(json.dumps(session, ensure_ascii=False, indent=1), encoding="utf-8")


def _read_action(raw: str) -> Any:
    if raw == "-":
        text = sys.stdin.read()
    elif raw.startswith("@"):
        path = Path(raw[1:])
        if not path.is_file():
            raise CLIError(f"action file {path}: no such file")
        text = path.read_text(encoding="utf-8")
    else:
        text = raw
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise CLIError(f"the action is not JSON ({exc.msg} at line {exc.lineno} column {exc.colno})") from None


def tools_markdown(base: VibeLifeEnv) -> str:
    """The tool list as Markdown: one section per tool with its description and parameters."""
    lines = [f"# Tools of {base.task.id}", ""]
    for schema in base.tool_schemas():
        fn = schema["function"]
        lines += [f"## {fn['name']}", "", fn.get("description", "").strip(), ""]
        params = fn.get("parameters", {}) or {}
        required = set(params.get("required", []))
        for name, spec in (params.get("properties") or {}).items():
            kind = spec.get("type", "any")
            if isinstance(kind, list):
                kind = " | ".join(map(str, kind))
            need = "required" if name in required else "optional"
            desc = " ".join(str(spec.get("description", "")).split())
            lines.append(f"- `{name}` ({kind}, {need}){': ' + desc if desc else ''}")
        lines.append("")
    return "\n".join(lines)


def _calls_left(base: VibeLifeEnv) -> str:
    turn, episode = base.episode.calls_left("assistant")
    return f"{turn} tool calls left in this turn, {episode} in the episode"


def _print_messages(messages: Any) -> None:
    for m in messages:
        role = m.get("role")
        if role == "tool":
            print(f"--- result of {m.get('name', '')} ({m.get('tool_call_id', '')})")
            print(m.get("content", ""))
        elif role == "user":
            print("=== new turn ===")
            print(m.get("content", ""))
        elif role == "system":
            print(m.get("content", ""))
        print()


def _print_status(base: VibeLifeEnv, info: dict[str, Any] | None = None) -> None:
    if base.episode.done:
        print("The episode is over. `vibelife play score DIR` shows the score and every check.")
        return
    state = f"turn {base.turn + 1}, stage {base.current_stage}, {base.world.clock.iso() if base.world else ''}"
    print(f'[{state}; {_calls_left(base)}. Send tool calls, or a reply to end the turn ("" = stay silent).]')


# ----------------------------------------------------------------------------- actions
def _new(args: argparse.Namespace) -> int:
    folder = Path(args.dir)
    if folder.exists() and any(folder.iterdir()):
        raise CLIError(f"{folder}: not empty; give a new folder for the session")
    if args.bundles:
        register_bundle_dir(args.bundles)
    check_env_ids([args.env_id])
    make: dict[str, Any] = {}
    if "family_dir" in gym.spec(args.env_id).kwargs:
        make = {"split": args.split or "test", "instance": args.instance if args.instance is not None else 0}
        if args.level:
            make["level"] = args.level
    elif args.instance is not None or args.split is not None or args.level:
        raise CLIError(f"{args.env_id} is a single task: --instance, --split and --level are for scenario families")
    env = gym.make(args.env_id, **make)
    base = base_env(env)
    obs, info = env.reset(seed=args.seed)
    folder.mkdir(parents=True, exist_ok=True)
    (folder / TOOLS).write_text(tools_markdown(base), encoding="utf-8")
    system = "\n\n".join(str(m.get("content", "")) for m in obs["messages"] if m.get("role") == "system")
    # the rules and limits, and how an action is read, to read again later
    (folder / PROMPT).write_text(system + "\n\n" + ACTION_FORMS + "\n", encoding="utf-8")
    session = {
        "env_id": args.env_id,
        "make": make,
        "instance": make.get("instance"),
        "split": make.get("split"),
        "level": (info.get("instance") or {}).get("level"),  # a family's, as played (its default if not given)
        "reset_seed": args.seed,
        "bundles": str(Path(args.bundles).resolve()) if args.bundles else None,
        "env_version": vibelife_env.VERSION,
        "actions": [],
    }
    _save(folder, session, base)
    _print_messages(obs["messages"])
    print(ACTION_FORMS)
    print(f"(The tools are listed in {folder / TOOLS}: {len(base.tool_schemas())} tools.)")
    print(f"(The system prompt above, with its limits, is kept in {folder / PROMPT}.)")
    _print_status(base)
    return 0


def _step(args: argparse.Namespace) -> int:
    folder = Path(args.dir)
    session, base, env = _load(folder)
    if base.episode.done:
        raise CLIError("the episode is over: `vibelife play score DIR` shows the score")
    action = _read_action(args.action)
    try:
        obs, _, terminated, truncated, info = env.step(action)
    except ActionError as exc:
        raise CLIError(f"bad action, nothing changed: {exc}") from None
    session["actions"].append(action)
    _save(folder, session, base)
    _print_messages(obs["messages"])
    if info.get("idle_turn_closed"):
        print("(The turn closed as a silent reply after steps with neither a tool call nor a reply.)")
    if terminated or truncated:
        _write_trajectory(folder, session, base)
    _print_status(base, info)
    return 0


def _write_trajectory(folder: Path, session: dict[str, Any], base: VibeLifeEnv) -> None:
    row = {
        "env_id": session["env_id"],
        "instance": session.get("instance"),
        "split": session.get("split"),
        "level": session.get("level"),
        "reset_seed": session["reset_seed"],
        "env_version": session.get("env_version"),
        "score_when_played": round(100.0 * base.score, 2),
        "actions": session["actions"],
    }
    (folder / TRAJECTORY).write_text(json.dumps(row, ensure_ascii=False, indent=1), encoding="utf-8")


def _show(args: argparse.Namespace) -> int:
    _, base, _ = _load(Path(args.dir))
    if args.prompt:  # the same text `new` printed and kept in system.md
        print(base.system_prompt)
        print()
        print(ACTION_FORMS)
        print()
    obs = base.current_observation()
    _print_messages(obs["messages"])
    _print_status(base)
    return 0


def _score(args: argparse.Namespace) -> int:
    _, base, _ = _load(Path(args.dir))
    if not base.episode.done:
        raise CLIError("the episode is still running: the score is shown once it is over")
    results = list(base.scorer.results.values())
    checks = {c.id: c for c in base.task.checks}
    print(f"{base.task.id}: score {100.0 * base.score:.2f}/100")
    earned = sum(r.earned for r in results)
    print(
        f"{sum(r.passed for r in results)} of {len(results)} checks passed; weight {earned:g} of {base.scorer.total_weight:g}"
    )
    print()
    for r in results:
        if args.failed and r.passed:
            continue
        where = f"stage {r.stage}" if r.tier == "stage" else r.tier
        mark = "PASS" if r.passed else "FAIL"
        print(f"{mark} {r.id}  ({where}, weight {r.weight:g})")
        print(f"    {r.description or checks[r.id].description}")
        if not r.passed:
            print(f"    why: {r.reason}")
    return 0


def main(args: argparse.Namespace) -> int:
    return {"new": _new, "step": _step, "show": _show, "score": _score}[args.play_command](args)
