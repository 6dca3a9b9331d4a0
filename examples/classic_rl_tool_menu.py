"""Classic RL on VibeLife: tabular control (Monte-Carlo, or Q-learning) over a discrete menu of macro actions.

The demo task ``VibeLife-demo-errands-v0`` needs tool calls with arguments (mail ids,
event times), which a ``Discrete`` policy cannot write. A *tool menu* turns the chat action
space into ``Discrete(n)``: each index is a macro, a short scripted sequence of tool calls
(or a turn-closing reply). The macros here are the building blocks of the task, plus
tempting wrong ones (the wrong slot, answering the phishing mail with the ID number); the
agent has to discover which to use, in which turn and in which order (replying to the
clinic only works after its mail was found; moving the event only after it exists).

The state is ``(turn, macros used in this turn)`` plus a few flags of the agent's own
memory (what it has found, created, logged and handled: :func:`features`); rewards are the env's (newly earned
check weight), sparse and delayed to stage closes and the episode end. Every-visit
Monte-Carlo control (the default; ``--method q`` for one-step Q-learning) with ε-greedy
exploration beats the do-nothing baseline (0/100) in seconds: 400 episodes
take about 3 s of CPU time and the greedy policy then scores about 81/100 (Q-learning: 38). Run::

    python examples/classic_rl_tool_menu.py --episodes 400 --out runs/classic_rl

It prints the learning curve (score per episode and its moving average, against the null
agent's score) and saves it as ``learning_curve.json`` and ``learning_curve.csv`` in ``--out``.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable, Generator
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np

import vibelife_env  # noqa: F401  (registers the envs)
from vibelife_env.agents import NullAgent
from vibelife_env.rollout import run_episode

ENV_ID = "VibeLife-demo-errands-v0"
WED = ("2026-05-06T15:30:00+08:00", "2026-05-06T16:30:00+08:00", "2026-05-06 15:30")
WED_EARLY = ("2026-05-06T10:00:00+08:00", "2026-05-06T11:00:00+08:00", "2026-05-06 10:00")
THU = ("2026-05-07T16:00:00+08:00", "2026-05-07T17:00:00+08:00", "2026-05-07 16:00")

#: A macro is a generator: it yields plain actions, receives each step's parsed tool results
#: (a list), and may use a per-episode memory dict. Yielding an action with a reply closes
#: the turn; the macro ends there.
Macro = Callable[[dict[str, Any]], Generator[dict[str, Any], list[Any], None]]


def _calls(*calls: tuple[str, dict[str, Any]]) -> dict[str, Any]:
    return {"tool_calls": [{"name": n, "arguments": a} for n, a in calls], "reply": None}


def search_clinic_mail(mem):
    """Find the clinic's slot offer and read it (remembers its id)."""
    page = yield _calls(("email__search_emails", {"query": "pick a new slot", "folder": "INBOX"}))
    emails = page[0].get("emails", []) if isinstance(page[0], dict) else []
    if emails:
        mem["clinic_mail"] = emails[0]["email_id"]
        yield _calls(("email__read_email", {"email_id": mem["clinic_mail"]}))


def _reply_clinic(slot_text):
    def macro(mem):
        # without the mail id (search first!) the call fails with an error result
        body = f"Hello, Ms Chen will take {slot_text}. Thank you."
        sent = yield _calls(("email__reply_email", {"email_id": mem.get("clinic_mail", "unknown"), "body": body}))
        if isinstance(sent[0], dict) and "error" not in sent[0]:
            mem["replied"] = True

    macro.__doc__ = f"Reply to the clinic choosing {slot_text}."
    return macro


def _create_event(slot):
    def macro(mem):
        args = {"summary": "Dental check-up", "start": slot[0], "end": slot[1], "location": "Bright Smile"}
        event = yield _calls(("calendar__create_event", args))
        if isinstance(event[0], dict) and "event_id" in event[0]:
            mem["event_id"], mem["slot"] = event[0]["event_id"], slot[2]

    macro.__doc__ = f"Create the dental event at {slot[2]}."
    return macro


def move_event_thursday(mem):
    """Move the dental event to Thu 16:00 (needs the event created first)."""
    args = {"event_id": mem.get("event_id", "unknown"), "start": THU[0], "end": THU[1]}
    result = yield _calls(("calendar__update_event", args))
    if isinstance(result[0], dict) and "error" not in result[0]:
        mem["slot"] = THU[2]


def _phishing_id(mem):
    inbox = yield _calls(("email__get_emails", {"folder": "INBOX"}))
    for m in inbox[0].get("emails", []) if isinstance(inbox[0], dict) else []:
        if m["subject"].startswith("Insurance verification"):
            return m["email_id"]
    return None


def spam_phishing(mem):
    """Move the insurance-verification mail (a look-alike domain) to Spam, if it is there."""
    mail_id = yield from _phishing_id(mem)
    if mail_id is not None:
        yield _calls(("email__move_email", {"email_id": mail_id, "target_folder": "Spam"}))
        mem["phish"] = True


def answer_phishing(mem):
    """Answer the insurance-verification mail with the ID number (unsafe)."""
    mail_id = yield from _phishing_id(mem)
    if mail_id is not None:
        yield _calls(("email__reply_email", {"email_id": mail_id, "body": "ID number: 310101199001011234"}))
        mem["phish"] = True


def log_appointment(mem):
    """Log the current slot in ERRANDS.md as confirmed (an earlier confirmed slot becomes cancelled)."""
    slot, logged = mem.get("slot"), mem.get("logged")
    if slot is None or slot == logged:
        return
    if logged is not None:
        old = f"| {logged} | dental check-up | confirmed |"
        yield _calls(
            (
                "workspace__edit_file",
                {"path": "ERRANDS.md", "old_text": old, "new_text": old.replace("confirmed", "cancelled")},
            )
        )
    row = f"| {slot} | dental check-up | confirmed |\n"
    yield _calls(("workspace__append_file", {"path": "ERRANDS.md", "content": row}))
    mem["logged"] = slot


def _say(text):
    def macro(mem):
        yield {"tool_calls": [], "reply": text}

    macro.__doc__ = f"Reply {text!r} (closes the turn)." if text else "Stay silent (closes the turn)."
    return macro


MACROS: dict[str, Macro] = {
    "reply silently": _say(""),
    "search clinic mail": search_clinic_mail,
    "reply to clinic: Wed 15:30": _reply_clinic("Wednesday 6 May 15:30"),
    "reply to clinic: Wed 10:00": _reply_clinic("Wednesday 6 May 10:00"),
    "create event Wed 15:30": _create_event(WED),
    "create event Wed 10:00": _create_event(WED_EARLY),
    "move event to Thu 16:00": move_event_thursday,
    "move phishing mail to Spam": spam_phishing,
    "answer phishing mail": answer_phishing,
    "log the appointment": log_appointment,
    "tell user: booked Wed 15:30": _say("Your check-up is booked for Wednesday 6 May 15:30."),
    "tell user: moved to Thu 16:00": _say("The clinic moved your check-up to Thursday 7 May 16:00; all updated."),
}


class MacroMenu(gym.Wrapper):
    """``Discrete(len(macros))`` actions over a VibeLife env; each runs one macro.

    One wrapper step runs the macro's actions through the env until it ends, closes the
    turn, or the episode ends; the rewards are summed. After ``max_macros_per_turn``
    macros that did not close the turn, the turn is closed silently.

    Args:
        env: A VibeLife env.
        macros: Name → macro generator function (see :data:`Macro`).
        max_macros_per_turn: Bound on macros per turn.
    """

    def __init__(self, env: gym.Env, macros: dict[str, Macro], max_macros_per_turn: int = 6) -> None:
        super().__init__(env)
        if not macros:
            raise ValueError("MacroMenu needs at least one macro")
        self.names = list(macros)
        self.macros = list(macros.values())
        self.max_macros_per_turn = max_macros_per_turn
        self.action_space = gym.spaces.Discrete(len(self.macros))
        self.memory: dict[str, Any] = {}
        self.in_turn = 0

    def reset(self, **kwargs: Any) -> tuple[Any, dict[str, Any]]:
        self.memory, self.in_turn = {}, 0
        return self.env.reset(**kwargs)

    def step(self, action: Any) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        index = int(action)
        if not 0 <= index < len(self.macros):
            raise ValueError(f"MacroMenu action must be in [0, {len(self.macros)}), got {action!r}")
        turn = self.env.unwrapped.turn
        gen = self.macros[index](self.memory)
        total, results = 0.0, None
        obs, terminated, truncated, info = None, False, False, {}
        while True:
            try:
                act = gen.send(results) if results is not None else next(gen)
            except StopIteration:
                break
            obs, reward, terminated, truncated, info = self.env.step(act)
            total += float(reward)
            results = [json.loads(m["content"]) for m in obs["messages"] if m["role"] == "tool"]
            if terminated or truncated or act.get("reply") is not None:
                break
        closed = terminated or truncated or self.env.unwrapped.turn != turn
        self.in_turn = 0 if closed else self.in_turn + 1
        if not closed and self.in_turn >= self.max_macros_per_turn:
            obs, reward, terminated, truncated, info = self.env.step({"tool_calls": [], "reply": ""})
            total += float(reward)
            self.in_turn = 0
        if obs is None:  # the macro did nothing (e.g. nothing to log): the state is unchanged
            obs, info = self.env.unwrapped.current_observation(), {"score": 100 * self.env.unwrapped.score}
        info["turn"] = self.env.unwrapped.turn
        return obs, total, terminated, truncated, info


def features(env: MacroMenu, max_turns: int = 8) -> tuple[int, ...]:
    """The state: turn, macros used in this turn, and what the agent's own memory says it did
    (clinic mail found, replied to the clinic, which slot the event holds, slot logged, phishing
    handled)."""
    mem = env.memory
    slot = {None: 0, WED[2]: 1, WED_EARLY[2]: 2, THU[2]: 3}[mem.get("slot")]
    flags = (
        "clinic_mail" in mem,
        mem.get("replied", False),
        mem.get("logged") == mem.get("slot"),
        mem.get("phish", False),
    )
    return (min(env.unwrapped.turn, max_turns - 1), env.in_turn, slot, *map(int, flags))


def _greedy(q: dict, state: tuple[int, ...], n: int, rng: np.random.Generator | None = None) -> int:
    row = q.get(state)
    if row is None:
        return 0 if rng is None else int(rng.integers(n))
    best = np.flatnonzero(row == row.max())
    return int(best[0] if rng is None else rng.choice(best))


def q_learning(
    episodes: int, seed: int = 0, alpha: float = 0.2, eps_end: float = 0.02, max_in_turn: int = 6, method: str = "mc"
) -> tuple[list[float], dict[tuple[int, ...], np.ndarray]]:
    """Tabular control over :func:`features` with ε-greedy exploration (γ = 1).

    ``method="mc"``: every-visit Monte-Carlo control (each Q(s, a) moves toward the return
    that followed it; suits sparse, delayed rewards). ``method="q"``: one-step Q-learning.
    Returns per-episode scores (0-100) and the Q table.
    """
    if method not in ("mc", "q"):
        raise ValueError(f"method must be 'mc' or 'q', got {method!r}")
    rng = np.random.default_rng(seed)
    env = MacroMenu(gym.make(ENV_ID), MACROS, max_in_turn)
    n = int(env.action_space.n)
    q: dict[tuple[int, ...], np.ndarray] = {}
    scores = []
    for ep in range(episodes):
        eps = max(eps_end, 1.0 - ep / (0.6 * episodes))
        env.reset(seed=seed)
        state, done, trace = features(env), False, []
        while not done:
            a = int(rng.integers(n)) if rng.random() < eps else _greedy(q, state, n, rng)
            _, r, terminated, truncated, _ = env.step(a)
            done = terminated or truncated
            nxt = features(env)
            trace.append((state, a, float(r)))
            if method == "q":
                target = r if done else r + (q[nxt].max() if nxt in q else 0.0)
                row = q.setdefault(state, np.zeros(n))
                row[a] += alpha * (target - row[a])
            state = nxt
        if method == "mc":
            ret = 0.0
            for s, a, r in reversed(trace):
                ret += r
                row = q.setdefault(s, np.zeros(n))
                row[a] += alpha * (ret - row[a])
        scores.append(float(env.unwrapped.score) * 100.0)
    return scores, q


def greedy_plan(q: dict, seed: int = 0, max_in_turn: int = 6) -> tuple[float, list[tuple[int, str]]]:
    """The greedy policy's score and its macro sequence ``(turn, macro)``."""
    env = MacroMenu(gym.make(ENV_ID), MACROS, max_in_turn)
    env.reset(seed=seed)
    done, plan = False, []
    while not done:
        state = features(env)
        a = _greedy(q, state, int(env.action_space.n))
        plan.append((state[0], env.names[a]))
        _, _, terminated, truncated, _ = env.step(a)
        done = terminated or truncated
    return float(env.unwrapped.score) * 100.0, plan


def null_score(seed: int = 0) -> float:
    """The do-nothing baseline's score on the demo task."""
    return run_episode(gym.make(ENV_ID), NullAgent(), seed=seed, record=False).score


def moving_average(values: list[float], window: int) -> list[float]:
    """Trailing mean over up to ``window`` values."""
    return [float(np.mean(values[max(0, i + 1 - window) : i + 1])) for i in range(len(values))]


def build_parser() -> argparse.ArgumentParser:
    """The command line of this example."""
    p = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0], formatter_class=argparse.ArgumentDefaultsHelpFormatter
    )
    p.add_argument("--episodes", type=int, default=400, help="training episodes (one reset seed for all)")
    p.add_argument("--seed", type=int, default=0, help="reset seed of the task and of the exploration")
    p.add_argument("--window", type=int, default=20, help="moving-average window of the printed curve")
    p.add_argument(
        "--method", choices=("mc", "q"), default="mc", help="every-visit Monte-Carlo control (mc) or Q-learning (q)"
    )
    p.add_argument("--out", default="runs/classic_rl", help="folder for learning_curve.json and learning_curve.csv")
    return p


def main(argv: list[str] | None = None) -> int:
    p = build_parser()
    args = p.parse_args(argv)
    if args.episodes < 1 or args.window < 1:
        p.error(f"--episodes and --window must be >= 1, got {args.episodes} and {args.window}")
    baseline = null_score(args.seed)
    scores, q = q_learning(args.episodes, args.seed, method=args.method)
    avg = moving_average(scores, args.window)
    greedy, plan = greedy_plan(q, args.seed)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    curve = {
        "env": ENV_ID,
        "method": args.method,
        "null_score": baseline,
        "greedy_score": greedy,
        "scores": scores,
        "moving_average": avg,
    }
    curve["greedy_plan"] = plan
    (out / "learning_curve.json").write_text(json.dumps(curve, indent=2))
    lines = ["episode,score,moving_average,null_score"]
    lines += [f"{i},{s:.4f},{m:.4f},{baseline:.4f}" for i, (s, m) in enumerate(zip(scores, avg, strict=True))]
    (out / "learning_curve.csv").write_text("\n".join(lines) + "\n")
    step = max(1, len(scores) // 20)
    print(f"{'episode':>8}{'score':>9}{'avg':>9}   (null agent: {baseline:.2f})")
    for i in range(0, len(scores), step):
        print(f"{i:>8}{scores[i]:>9.2f}{avg[i]:>9.2f}")
    print(f"greedy policy after training: {greedy:.2f}/100 vs null {baseline:.2f}/100")
    for turn, name in plan:
        print(f"  turn {turn}: {name}")
    print(f"wrote {out / 'learning_curve.json'} and {out / 'learning_curve.csv'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
