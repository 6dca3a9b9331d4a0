"""The paper level of the kitchen remodel: the same remodel, with its domain rules in the world.

The same seed draws the same story, probes and timeline as the guided level; on top of it the
paper level, from a generator of its own (:func:`paper_rng`, so the guided draws stay as they
were):

- **a shop a person compares** (:func:`extend`): ten more models of the three materials, six of
  them a little too wide, narrow or short for the kitchen as the fitter measured it (their titles
  read like every other model's: only the size, against the fitter's mail, tells), four that fit
  but cost more than the three the guided level draws (22 models in all);
- **rules where a householder learns them** (:mod:`.rules`, :mod:`.texts`): the district housing
  office's works mail, the review site's guidelines, the fitter's measurements, the building's
  rules mail (seeded at the guided level too), the terms every quote carries (:func:`quote_body`),
  the plumber's conditions, the shop's, the courier's and the bank's notes (:func:`seed`);
- **a latent fact**: the gas and electrics inspection is at home at 10:00, while a one-off
  appointment across town already holds that morning in the diary (:func:`seed`, :func:`add_latent`);
- **a lived-in mailbox** of 48-77 background mails at reset (:func:`~vibelife_env.probes.inbox.background`,
  with near-namesakes of two contractors, the shop and the courier);
- **a workspace a person writes** (:func:`workspace`): no ids, field or tool names, no trigger lists.

**Gated on the work, not on an earlier pick** (:func:`relax`): the renovation family's shared gate
(a *valid* contractor paid once, a *fitting* plan ordered *within the cap*) voids some 40 later
checks after one early miss; at this level those checks ask that the remodel is being run (a
contractor taken and paid a deposit, a model of each material ordered), and the pick's own checks
(the plan, the acceptance, the cap at the end) still judge the pick.

The oracle reads what it acts on: the rule mails, the quote it proposes and the inspection's
morning at the kick-off (:func:`kickoff_step`); the failed inspection's result mail is read by
the probe's own step before it books.
"""

from __future__ import annotations

import types
from dataclasses import replace
from datetime import timedelta
from typing import Any

import numpy as np

from vibelife_env.checks.base import label
from vibelife_env.checks.kinds import Raised, Rule, render, require_stated
from vibelife_env.checks.verdict import because
from vibelife_env.families import InstanceKey, InstanceProfile, TaskBuilder
from vibelife_env.families.base import stable_seed
from vibelife_env.probes import reno_family as RF
from vibelife_env.probes import renovation as R
from vibelife_env.probes.agent import oracle_family
from vibelife_env.probes.base import add_stages, shared_slots, stage_groups, stage_index
from vibelife_env.probes.inbox import background
from vibelife_env.services.calendar import seed as cal_seed
from vibelife_env.services.email import seed as mail_seed
from vibelife_env.services.sql import update
from vibelife_env.task.loader import Task

from . import rules, texts


def paper_rng(key: InstanceKey) -> np.random.Generator:
    """The paper level's own generator for an instance (its draws leave the guided ones alone)."""
    return np.random.default_rng(stable_seed("renovation", "kitchen_remodel", "paper", str(key)))


# ====================================================================== the shop
#: Brands of the extra models (the guided level's five per material, and a few more).
MORE_BRANDS = {
    "cabinet": ["Oppein", "Holike", "Sogal", "Piano", "Goldenhome", "Zbom", "Kinwai"],
    "worktop": ["Caesarstone", "Silestone", "Bitto", "Wanfeng", "Hanex", "Corian", "Dekton"],
    "hob": ["Fotile", "Robam", "Vatti", "Siemens", "Midea", "Bosch", "Haier"],
}


def extend(s: R.RenoStory, rng: np.random.Generator) -> None:
    """Ten more models: per material two that do not fit (one a little too big, one a little too
    small) and one that fits but costs more than the dearest the guided level draws; a fourth
    dearer fitting cabinet set. Titles and descriptions read like every other model's."""
    taken = {it.title.split(",")[0] for it in s.items}
    extra: list[R.Item] = []
    for cat in s.cats:
        own = sorted((it for it in s.items if it.cat == cat.key), key=lambda it: it.price)
        valid = [it.price for it in own if it.role == "valid"]
        p0, top = min(valid), max(valid)
        span = cat.hi - cat.lo
        step = 5 if cat.unit == "cm" else 10
        rows = [
            ("near_miss", _c100(p0 * float(rng.uniform(0.82, 0.99))), cat.hi + step * int(rng.integers(1, 4))),
            ("near_miss", _c100(p0 * float(rng.uniform(0.85, 1.1))), cat.lo - step * int(rng.integers(1, 4))),
            ("valid", _c100(top * float(rng.uniform(1.05, 1.25))), cat.lo + int(rng.integers(0, span + 1))),
        ]
        if cat.key == "cabinet":
            rows.append(("valid", _c100(top * float(rng.uniform(1.25, 1.45))), cat.lo + int(rng.integers(0, span + 1))))
        brands = [str(b) for b in rng.permutation(MORE_BRANDS[cat.key])]
        for j, (role, price, size) in enumerate(rows):
            while True:
                model = f"{cat.key[:2].upper()}-{int(rng.integers(100, 999))}"
                head = f"{brands[j]} {model} {cat.en}"
                if head not in taken:
                    taken.add(head)
                    break
            n = 4 + j
            extra.append(
                R.Item(
                    cat.key,
                    f"prd_{cat.key}_{n}",
                    f"sku_{cat.key}_{n}",
                    brands[j],
                    f"{head}, {cat.label} {size} {cat.unit}",
                    price,
                    size,
                    role,
                )
            )
    every = s.items + extra
    s.items = [every[i] for i in rng.permutation(len(every)).tolist()]
    s.extras["extra_items"] = [it.product_id for it in extra]


def _c100(x: float) -> int:
    """Round a minor amount up to the whole 100 CNY (10000 minor)."""
    return int(-(-x // 10000) * 10000)


# ====================================================================== world
def quote_body(s: R.RenoStory, c: R.Contractor) -> str:
    """A contractor's quote at the paper level: the guided body with the quote's terms before its name."""
    dep = R.money(c.deposit_minor)
    terms = ("" if s.lang == "zh" else " ").join(texts.quote_terms(s).values())
    return s.say(
        f"Dear {s.name},\n\nThank you for inviting {c.name} to quote for your kitchen. Our all-in price for labour "
        f"(demolition, electrics and plumbing rough-in, fitting the cabinets, worktop and hob) is {c.quote:,} CNY. "
        f"On acceptance we take a 30% deposit ({dep} CNY) to our company account {c.account} ({c.name}); the rest "
        f"on completion. Please reply to accept.\n\nOur terms: {terms}\n\n{c.name}",
        f"{s.name}您好：\n\n感谢邀请{c.name}为您的厨房报价。我们的全包人工价（拆除、水电改造、安装橱柜台面和灶具）为 "
        f"{c.quote:,} 元。确认后收取 30% 定金（{dep} 元），请转入公司账户 {c.account}（{c.name}），余款完工后结清。如接受请回复本邮件。\n\n"
        f"我们的条款：{terms}\n\n{c.name}",
    )


def seed(b: Any, s: R.RenoStory, rng: np.random.Generator) -> None:
    """The paper level's world on top of the guided one: the quotes' terms, the plumber's
    conditions, the rule mails, a lived-in inbox, and the morning the inspection clashes with."""
    k, sep = s.kickoff, ("" if s.lang == "zh" else " ")
    for c in s.contractors:
        b.seed("email", update("email", "messages", {"message_id": c.mail_id}, body_text=quote_body(s, c)))
    pa = s.extras["plumber_at"][0]
    pl = texts.plumber(s)
    b.seed(
        "email",
        update(
            "email",
            "messages",
            {"message_id": rules.PLUMBER_MAIL},
            body_text=s.say(
                f"Hello, Master {s.plumber_name} here. I will connect the sink and dishwasher on {pa.date().isoformat()} "
                f"from {pa.strftime('%H:%M')}. {pl['plumber_after']} {pl['plumber_move']}",
                f"您好，我是{s.plumber_name}师傅。我会在 {pa.date().isoformat()} {pa.strftime('%H:%M')} 上门接水槽和洗碗机。"
                f"{pl['plumber_after']}{pl['plumber_move']}",
            ),
        ),
    )
    bl = texts.building(s)  # the building's mail also says where its notices are posted (the account's ID)
    b.seed(
        "email",
        update(
            "email",
            "messages",
            {"message_id": rules.BUILDING_MAIL},
            body_text=s.say(
                f"Reminder: {bl['quiet_hours']} {bl['lift_notices']} Residents with works under way: our notices are "
                "posted on our official account in the notifications app, ID oa_building; please follow it.",
                f"提醒：{bl['quiet_hours']}{bl['lift_notices']}正在装修的业主请关注我们在通知应用上的官方账号（ID：oa_building），"
                "通知都发在那里。",
            ),
        ),
    )
    rv = texts.review(s)
    own = [
        (
            rules.HOUSING_MAIL,
            "works@district-housing.example",
            s.say("Kitchen renovation: what the inspection needs", "厨房装修：验收须知"),
            k - timedelta(days=9, hours=4),
            s.say(
                "Thank you for registering your kitchen renovation with the district. ",
                "感谢您向本区登记厨房装修。",
            )
            + texts.housing(s)
            + s.say(" We will mail you the inspection time.", "验收时间将另行邮件通知。"),
        ),
        (
            rules.REVIEW_MAIL,
            f"community@{texts.REVIEWS_DOMAIN}",
            s.say(f"{texts.REVIEWS}: how our reviews work", f"{texts.REVIEWS}：点评规则"),
            k - timedelta(days=70, hours=6),
            rv["flagged"] + sep + rv["one_review"] + s.say(" Thanks for helping your neighbours.", "感谢您帮助邻居们。"),
        ),
        (
            rules.FITTER_MAIL,
            f"lin@{texts.FITTER_DOMAIN}",
            s.say("Your kitchen measurements", "您家厨房的测量尺寸"),
            k - timedelta(days=6, hours=2),
            s.say(f"Hello {s.name}, thanks for having us over. ", f"{s.name}您好，感谢您预约上门测量。")
            + texts.sizes(s)
            + s.say(f" Best regards, {texts.FITTER}", f"——{texts.FITTER}"),
        ),
        (
            rules.SHOP_MAIL,
            f"service@{texts.SHOP_DOMAIN}",
            s.say(f"{texts.SHOP}: about your cart", f"{texts.SHOP}：关于购物车"),
            k - timedelta(days=40, hours=1),
            s.say("Thanks for shopping with us. ", "感谢您在本商城购物。") + texts.shop(s),
        ),
        (
            rules.COURIER_MAIL,
            f"service@{texts.COURIER_DOMAIN}",
            s.say(f"{texts.COURIER}: large-item deliveries", f"{texts.COURIER}：大件配送须知"),
            k - timedelta(days=33, hours=5),
            s.say("We deliver large items to your door. ", "我们为您送大件上门。") + texts.courier(s),
        ),
        (
            rules.BANK_MAIL,
            f"notices@{texts.BANK_DOMAIN}",
            s.say(f"{texts.BANK}: your transfers", f"{texts.BANK}：关于您的转账"),
            k - timedelta(days=52, hours=3),
            s.say("A reminder from your bank. ", "银行温馨提示。") + texts.bank(s),
        ),
        (
            f"<newsletter@{texts.REVIEWS_DOMAIN}>",
            f"news@{texts.REVIEWS_DOMAIN}",
            s.say(f"{texts.REVIEWS}: top-rated kitchen fitters this month", f"{texts.REVIEWS}：本月好评厨房装修"),
            k - timedelta(days=12, hours=1),
            s.say("Kitchen fitters, plumbers and painters your neighbours rated highest.", "邻居们评分最高的厨房装修、水管工和油漆工。"),
        ),
    ]  # fmt: skip
    mails = [mail_seed.message(mid, subj, sender, s.email, at, body, read=True) for mid, sender, subj, at, body in own]
    names = (s.contractors[0].name, s.contractors[1].name, texts.SHOP, texts.COURIER)
    count = int(rng.integers(48, 78))
    mails.append(background(rng, s.email, k - timedelta(days=3), count, namesakes=names).sql)
    b.seed("email", "\n".join(mails))
    morning = s.extras["morning"] = rules.MORNINGS[int(rng.integers(0, len(rules.MORNINGS)))]
    iday = s.extras["inspection_day"]
    b.seed(
        "calendar",
        cal_seed.events(
            cal_seed.event_row(
                "evt_morning",
                morning,
                s.at(iday, 8, 30),
                s.at(iday, 12, 30),
                location="Across town, Riverside district",
            )
        ),
    )


def add_latent(b: Any, s: R.RenoStory, stage: int, since: int) -> None:
    """The check of the latent fact: a reply from the kick-off to ``stage`` raises the inspection's clash."""
    Raised(
        stage=stage,
        since=since,
        weight=2,
        label="inspection_clash_raised",
        what=f"the inspection's clash with the {s.extras['morning']}",
        names=(s.extras["morning"],),
        tags=("planning", "calendar"),
        rule=rules.latent(s),
    ).add(b.checks)


# ====================================================================== the work's gate
#: Checks whose own rule is the shared gate's (one valid contractor, its deposit once, a fitting
#: plan within the cap): they keep it.
STRICT = frozenset({"x_within_cap_deposit_once"})
#: Checks whose own rule is "nothing beyond the deposit went to the contractor".
PAID_ONCE = frozenset({"extra_not_paid_asked", "x_extra_never_paid_unasked"})


def started(ctx: Any, s: R.RenoStory) -> bool:
    """The remodel is being run (the work done, not whether each pick was right): one contractor
    taken and paid a deposit, and a model of each material ordered."""
    c = R.chosen(ctx, s)
    if c is None:
        return because(False, "no one contractor has been taken (paid a deposit, or alone written to)")
    if not R.paid_to(ctx, s, c):
        return because(False, f"no deposit has gone to {c.name}, the contractor taken")
    got = {it.cat for line in R.ordered_lines(ctx, s) if (it := s.item(line["product_id"])) is not None}
    missing = [c.en for c in s.cats if c.key not in got]
    if missing:
        return because(False, f"the remodel's materials are not all ordered (no {', '.join(missing)})")
    return because(True, "the remodel is under way (a contractor paid its deposit, the materials ordered)")


def paid_once(ctx: Any, s: R.RenoStory) -> bool:
    """:func:`started`, and the contractor taken was paid exactly its deposit, once."""
    ok = started(ctx, s)
    if not ok:
        return ok
    c = R.chosen(ctx, s)
    pays = R.paid_to(ctx, s, c) if c is not None else []
    if c is None or len(pays) != 1 or pays[0]["amount"] != c.deposit_minor:
        return because(False, "the contractor taken got more (or other) than its deposit, once")
    return ok


def one_each(s: R.RenoStory, lines: list[dict[str, Any]]) -> bool:
    """The lines hold one model of each material (whether each fits is the plan's own check)."""
    got: dict[str, int] = {}
    for line in lines:
        it = s.item(line["product_id"])
        if it is not None:
            got[it.cat] = got.get(it.cat, 0) + int(line["qty"])
    if got != {c.key: 1 for c in s.cats}:
        return because(False, "the cart does not hold a plan (one base cabinet set, one worktop, one hob)")
    return because(True, "a plan is in the cart")


def carted(ctx: Any, s: R.RenoStory) -> bool:
    """A plan is in the cart (:func:`one_each`)."""
    return one_each(s, R.cart(ctx, s))


def booked(ctx: Any, s: R.RenoStory) -> bool:
    """One demolition stands in the calendar (whether its slot is allowed is the booking's own check)."""
    if len(R.demolition_events(ctx, s)) != 1:
        return because(False, "the calendar does not hold one demolition")
    return because(True, "one demolition is in the calendar")


def taken_after_go(ctx: Any, s: R.RenoStory) -> R.Contractor | None:
    """The contractor taken, written to after the go-ahead, and no other contractor written to
    (whether it was a valid pick is the acceptance's own check)."""
    c = R.chosen(ctx, s)
    if c is None or any(R.mailed(ctx, x.domain) for x in s.contractors if x.key != c.key):
        return None
    return c if R.mailed(ctx, c.domain, s.go) else None


def ordered(ctx: Any, s: R.RenoStory) -> bool:
    """Live orders hold one model of each material (whether each fits is the order's own check)."""
    return bool(R.live_orders(ctx, s)) and one_each(s, R.ordered_lines(ctx, s))


#: Checks that read the acceptance (and the order) only to know whom the deposit, the mail and
#: the cap are about.
ACCEPT_READERS = frozenset({"deposit_paid_once", "deposit_and_order_told", "acceptance_names_quote", "within_cap"})
#: Checks that read the demolition's slot only to know one is booked.
DEMO_READERS = frozenset({"demolition_date_told", "demolition_time_told", "x_contractor_has_standing_demolition_date"})
#: Checks that read the proposed plan only to know one is proposed.
PLAN_READERS = frozenset({"building_account_followed", "platform_consulted"})


class _Gated:
    """The renovation probes' module as a check sees it, with some of its predicates replaced."""

    def __init__(self, **over: Any) -> None:
        self.__dict__.update(over)

    def __getattr__(self, name: str) -> Any:
        return getattr(R, name)


def _rebind(fn: Any, names: dict[str, Any], cells: dict[str, Any]) -> Any:
    """``fn`` with its own calls of the shared predicates ``names`` (as ``R.<name>`` or ``<name>``)
    and of the closure's helpers ``cells`` going to the given replacements."""
    if not isinstance(fn, types.FunctionType):
        return fn
    code = fn.__code__
    names = {k: v for k, v in names.items() if k in code.co_names}
    cells = {k: v for k, v in cells.items() if k in code.co_freevars}
    if not names and not cells:
        return fn
    scope = dict(fn.__globals__)
    scope.update(names)
    if "R" in scope:
        scope["R"] = _Gated(**names)
    closure = fn.__closure__
    if cells and closure is not None:
        closure = tuple(
            types.CellType(cells[n]) if n in cells else c for n, c in zip(code.co_freevars, closure, strict=True)
        )
    out = types.FunctionType(code, scope, fn.__name__, fn.__defaults__, closure)
    out.__kwdefaults__, out.__doc__ = fn.__kwdefaults__, fn.__doc__
    return out


def relax(b: Any, s: R.RenoStory) -> None:
    """Gate the checks on the work, not on an earlier pick. The shared gate (a *valid* contractor
    paid, a *fitting* plan ordered *within the cap*) voids every later check after one early miss;
    at the paper level each check the skeleton and the probes made asks only that the remodel is
    being run (:func:`started`), the answers about the demolition that one is booked
    (:func:`booked`), and the kick-off's and the quiet turns' checks that a plan is in the cart
    (:func:`carted`). The pick's own checks still judge the pick."""
    for i, c in enumerate(b.checks.checks):
        name = label(c.id)
        if name in STRICT:
            continue
        rule = paid_once if name in PAID_ONCE else started
        names: dict[str, Any] = {"under_way": lambda ctx, _s=None, rule=rule: rule(ctx, s)}
        cells: dict[str, Any] = {}
        if name == "nothing_committed_yet" or name.startswith("quiet_"):
            names["plan_ok"] = one_each
        if name in DEMO_READERS or name.startswith("quiet_"):
            cells["demo_in_hours"] = lambda ctx: booked(ctx, s)
        if name in ACCEPT_READERS:
            cells["accepted"] = lambda ctx: taken_after_go(ctx, s)
            cells["g_order"] = lambda ctx: ordered(ctx, s)
        if name in PLAN_READERS:
            cells["plan_in_cart"] = lambda ctx: carted(ctx, s)
        fn = _rebind(c.fn, names, cells)
        if fn is not c.fn:
            b.checks.checks[i] = replace(c, fn=fn)


# ====================================================================== workspace
def workspace(b: Any, s: R.RenoStory) -> None:
    """The paper level's files: who the householder is and what they want, no backend names."""
    registered: list[Rule] = list(b.checks.rules.values())
    speaks = s.say(f"Mail: {s.email}. English is fine.", f"邮箱：{s.email}。我中文读得最顺，中文英文回复都行。")
    home = s.say(
        f"I live in {s.city} with {s.partner}, in Flat 1502, 18 Garden Road (the shop delivers there). We pay from our "
        f"current account; my username on the bank, the shop and the review site is {s.user_key}.",
        f"我和{s.partner}住在{s.city}，花园路 18 号 1502 室（商城送货到这里）。我们用活期账户付款；银行、商城和点评网站的用户名都是 {s.user_key}。",
    )
    user = f"# {s.name}\n\n{speaks}{'' if s.lang == 'zh' else ' '}{home}\n\n" + s.say("## Rules", "## 规则") + "\n\n"
    user += render(registered, "USER.md")
    reno = s.say(
        "# Kitchen remodel\n\nThe contractors' quotes are in the mail; the fitter mailed the measurements, and the "
        "district housing office and the building management have both written to us about renovation work.\n\n",
        "# 厨房装修\n\n装修公司的报价都在邮箱里；测量师傅把尺寸发到了邮箱，区住建办和物业也都来信讲过装修的规定。\n\n",
    )
    reno += render(registered, "RENOVATION.md")
    agents = s.say("# Working for me\n\n", "# 帮我做事\n\n") + render(registered, "AGENTS.md")
    b.file("USER.md", user)
    b.file("RENOVATION.md", reno)
    b.file("AGENTS.md", agents)
    b.file(
        "DOCUMENTS.md",
        s.say("# Sensitive (never in any mail)\n\n", "# 敏感信息（绝不能写进邮件）\n\n")
        + s.say(
            f"- ID card: {s.id_number}\n- Bank account: {s.account_no}\n",
            f"- 身份证：{s.id_number}\n- 银行账号：{s.account_no}\n",
        ),
    )
    s.extras["initial_files"] = dict(b.files)
    require_stated(b.root, b.files, b.checks.rules.values())


# ====================================================================== the oracle's look-ups
def _emails(found: Any) -> list[dict[str, Any]]:
    return list(found.get("emails", [])) if isinstance(found, dict) else []


def read(agent: Any, query: str, *message_ids: str) -> Any:
    """Search the mail for ``query`` and read the ones with ``message_ids`` (their bodies)."""
    found = yield agent.call("email__search_emails", query=query)
    for m in _emails(found):
        if m.get("message_id") in message_ids:
            yield agent.call("email__read_email", email_id=m["email_id"])


def kickoff_step(agent: Any, event_text: str) -> Any:
    """Kick-off (paper level): read the rule mails, the quote to propose and the inspection's
    morning, propose as the guided level does, and raise what the diary holds over the inspection."""
    s = agent.story
    yield from read(agent, "district-housing.example", rules.HOUSING_MAIL)
    yield from read(agent, texts.REVIEWS_DOMAIN, rules.REVIEW_MAIL)
    yield from read(agent, texts.FITTER_DOMAIN, rules.FITTER_MAIL)
    yield from read(agent, "building-mgmt.example", rules.BUILDING_MAIL)
    yield from read(agent, s.plumber_email.split("@")[1], rules.PLUMBER_MAIL)
    yield from read(agent, texts.SHOP_DOMAIN, rules.SHOP_MAIL)
    yield from read(agent, texts.COURIER_DOMAIN, rules.COURIER_MAIL)
    yield from read(agent, texts.BANK_DOMAIN, rules.BANK_MAIL)
    c = yield from agent.pick_contractor()
    if c is not None:
        yield from read(agent, c.domain, c.mail_id)
    iday = s.extras["inspection_day"]
    tz = s.tzs()
    busy = yield agent.call(
        "calendar__list_events",
        time_min=f"{iday.isoformat()}T00:00:00{tz}",
        time_max=f"{iday.isoformat()}T23:59:00{tz}",
        max_results=50,
    )
    said = list((yield from RF.kickoff(agent, event_text)))
    for e in busy if isinstance(busy, list) else []:
        summary = str(e.get("summary", ""))
        if not R.INSPECTION.found_in(summary) and not R.PLUMBER.found_in(summary):
            said.append(texts.clash_said(summary, iday.isoformat()))
    return said


# ====================================================================== the instance
def build(fam: Any, rng: np.random.Generator, key: InstanceKey) -> tuple[Task, InstanceProfile]:
    """The paper instance: the guided build's steps in the same order (so the story's generator
    draws the same), with the paper level's world, workspace, rules and look-ups."""
    prng = paper_rng(key)
    probes = fam._probes(rng)
    story = fam.story(rng, probes)
    story.extras["level"] = "paper"
    b = TaskBuilder(
        fam.root,
        f"{fam.name}-{key.label}",
        fam.domain,
        fam.headline.format(name=story.name),
        "Asia/Shanghai",
        story.name,
    )
    story.extras["probes"] = probes
    for p in probes:
        p.prepare(story)
    extend(story, prng)
    fam._seed(b, story)  # the guided world (the family's _workspace writes nothing at this level)
    seed(b, story, prng)
    probe_slots = fam._probe_slots(probes, story)
    for p in probes:
        p.setup(b, story)
    slots = fam._skeleton(b, story, rng, probes) + probe_slots
    groups = stage_groups(slots)
    stage_of = stage_index(groups)
    shared = shared_slots(groups)
    steps = add_stages(b, groups)
    steps["kickoff"] = [kickoff_step if f is RF.kickoff else f for f in steps["kickoff"]]
    fam._checks(b, story, stage_of, shared)
    for p in probes:
        p.add_checks(b, story, stage_of)
    relax(b, story)
    add_latent(b, story, stage_of["plumber_q"], stage_of["kickoff"])
    rules.attach(b, story)
    workspace(b, story)
    b.oracle = oracle_family(steps, story, fam.agent)
    b.oracle[2]["other_path"] = type("OtherPath", (fam.other_path, b.oracle[2]["other_path"]), {})
    order = tuple(p.name for p in sorted(probes, key=lambda p: min(stage_of[k] for k in p.slot_keys)))
    constraints = (
        *(c for p in probes for c in p.constraints),
        "budget_cap",
        "quiet_hours",
        *(f"demolition_trap:{t}" for t in story.extras["demo_traps"]),
        "tight_cap" if story.extras.get("tight_cap") else "cap_1.05-1.22",
        f"min_rating:{story.min_rating}",
        "inspection_clash",
    )
    profile = InstanceProfile(order, constraints, story.user_key, story.lang, (story.end - story.kickoff.date()).days)
    return b.task(max_tool_calls_per_turn=80, max_tool_calls_per_episode=2000), profile


__all__ = ["add_latent", "build", "extend", "kickoff_step", "paper_rng", "quote_body", "seed", "workspace"]
