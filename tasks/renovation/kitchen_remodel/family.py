"""Scenario family ``renovation/kitchen_remodel``: a household remodels its kitchen over four to five weeks.

Each instance draws a persona (a third of them write in Chinese), six contractors who quoted by
mail (two valid; near-misses: the cheapest one unlicensed, one whose five-star reviews the review
platform flags, one rated below the stated minimum, one over the quote limit), a materials
catalogue (base cabinets, a worktop and a built-in hob, each with a stated size range: valid
models close in price, near-misses a little cheaper that do not fit), a budget cap that binds
(1.05-1.25x the cheapest valid plan: quote plus materials and delivery), the building's quiet
hours (noisy work only Monday to Saturday, 09:00-18:00), the plumber's visit after the
delivery and the gas and electrics inspection, and four to seven probes in random order from
the pool of :mod:`vibelife_env.probes.renovation`.

The skeleton: the assistant proposes a contractor and puts a valid plan in the shop cart
(nothing committed), accepts the quote, pays the 30% deposit once and orders the materials
after the go-ahead, books the contractor's demolition in one of the offered slots inside the
quiet hours, puts the delivery in the calendar, answers when it arrives and what is committed,
keeps notes in Notion, and closes with the final figures. The contractor writes, the courier
ships and the office reports in world scripts that follow what the agent did.

Two levels (``gym.make(..., level="guided" | "paper")``), one story per seed: ``guided`` is the
renovation family's instance as it was (every rule a checklist in USER.md, RENOVATION.md,
BUILDING.md and AGENTS.md); ``paper`` (the default, :mod:`.paper`) keeps in the workspace what the
householder tells an assistant and puts the domain rules in the mails where a householder learns
them (:mod:`.rules`, :mod:`.texts`).
"""

from __future__ import annotations

import re
from datetime import date, datetime, time

import numpy as np

from vibelife_env.checks import text
from vibelife_env.clock import get_zone
from vibelife_env.families import InstanceKey, InstanceProfile, TaskBuilder
from vibelife_env.probes import renovation as R
from vibelife_env.probes.reno_family import RenoAgent, RenoOtherPath, RenovationFamily, ceil100
from vibelife_env.task.loader import Task

from . import paper

GIVEN = ["Wei", "Na", "Jie", "Min", "Hao", "Lan", "Yu", "Ting", "Qiang", "Fang", "Lei", "Xin", "Rui", "Jun"]
FAMILY_NAMES = ["Li", "Wang", "Zhang", "Liu", "Chen", "Yang", "Zhao", "Huang", "Zhou", "Wu", "Xu", "Sun"]
WESTERN = ["Emma Clarke", "Tom Baker", "Sofia Rossi", "Daniel Weber", "Priya Nair", "Lucas Martin", "Hannah Berg"]
CITIES = ["Shanghai", "Beijing", "Hangzhou", "Shenzhen", "Chengdu", "Nanjing", "Suzhou"]
CONTRACTORS = [
    "Huajia Home Renovation",
    "Lianjia Kitchen Works",
    "Dongfang Jiazhuang",
    "Mingcheng Builders",
    "Yijia Interiors",
    "Jinpai Renovation",
    "Shunfeng Home Fit-out",
    "Anxin Decor",
    "Baixing Kitchen Studio",
]
BRANDS = {
    "cabinet": ["Oppein", "Holike", "Sogal", "Piano", "Goldenhome"],
    "worktop": ["Caesarstone", "Silestone", "Bitto", "Wanfeng", "Hanex"],
    "hob": ["Fotile", "Robam", "Vatti", "Siemens", "Midea"],
}
LICENCE = text.Phrases(["licence", "license", "licensed", "unlicensed", "资质", "执照"])
FLAGGED = text.Phrases(["flag", "fake", "suspicious", "刷单", "虚假", "可疑"])
PLUMBERS = [("Zhou", "zhou.plumbing.example"), ("Qian", "qian-shuidian.example"), ("Gao", "gao-plumbers.example")]
CHATS = [
    ("the old cabinets are finally coming out, I can't wait.", "旧橱柜终于要拆了，好期待。"),
    ("we'll have to eat out a lot this month, haha.", "这个月要经常在外面吃饭了，哈哈。"),
    ("the neighbour upstairs asked when the drilling starts.", "楼上邻居问什么时候开始打孔。"),
    ("I put the dishes in boxes in the living room.", "我把碗碟都装箱放客厅了。"),
    ("dust everywhere already...", "到处都是灰……"),
    ("can we still afford the nice tap later?", "之后还买得起那个好看的水龙头吗？"),
]


class KitchenRemodel(RenovationFamily):
    """See the module docstring."""

    domain = "renovation"
    name = "kitchen_remodel"
    title = "Remodelling the kitchen: contractor, materials, deliveries, inspection, under a cap"
    CHATS = CHATS
    headline = "{name} remodels the kitchen"
    agent = RenoAgent
    other_path = RenoOtherPath
    levels = ("guided", "paper")

    # ================================================================ levels
    def build(self, rng: np.random.Generator, key: InstanceKey) -> tuple[Task, InstanceProfile]:
        """The guided instance as the renovation family builds it; the paper one by :func:`.paper.build`."""
        if key.level == "paper":
            return paper.build(self, rng, key)
        return super().build(rng, key)

    def _workspace(self, b: TaskBuilder, s: R.RenoStory) -> None:
        """The guided checklist files; the paper level writes its own once the rules are known."""
        if s.extras.get("level") != "paper":
            super()._workspace(b, s)

    # ================================================================ story
    def story(self, rng: np.random.Generator, probes: list[R.RenoProbe]) -> R.RenoStory:
        lang = "zh" if rng.random() < 1 / 3 else "en"
        if lang == "zh" or rng.random() < 0.5:
            name = f"{GIVEN[int(rng.integers(0, len(GIVEN)))]} {FAMILY_NAMES[int(rng.integers(0, len(FAMILY_NAMES)))]}"
        else:
            name = WESTERN[int(rng.integers(0, len(WESTERN)))]
        partner = f"{GIVEN[int(rng.integers(0, len(GIVEN)))]} {FAMILY_NAMES[int(rng.integers(0, len(FAMILY_NAMES)))]}"
        tz = get_zone("Asia/Shanghai")
        start = date(2026, int(rng.integers(1, 12)), int(rng.integers(1, 9)))
        kickoff = datetime.combine(start, time(9), tzinfo=tz)
        min_rating = float(rng.choice([4.3, 4.5]))
        # ---- contractors
        names = rng.choice(CONTRACTORS, size=6, replace=False).tolist()
        q0 = int(rng.integers(220, 380)) * 100
        q1 = ceil100(q0 * float(rng.uniform(1.02, 1.05)))
        qmax = int(-(-q1 * float(rng.uniform(1.03, 1.08)) // 1000) * 1000)
        specs = [
            ("valid", q0, True, round(min_rating + float(rng.uniform(0.1, 0.4)), 1), False),
            ("valid", q1, True, round(min_rating + float(rng.uniform(0.0, 0.4)), 1), False),
            ("unlicensed", ceil100(q0 * float(rng.uniform(0.78, 0.88))), False, round(min_rating + 0.3, 1), False),
            ("flagged", ceil100(q0 * float(rng.uniform(0.88, 0.96))), True, 5.0, True),
            (
                "low_rating",
                ceil100(q0 * float(rng.uniform(0.9, 0.98))),
                True,
                round(min_rating - float(rng.uniform(0.2, 0.6)), 1),
                False,
            ),
            ("over", qmax + int(rng.integers(1, 5)) * 1000, True, round(min_rating + 0.3, 1), False),
        ]
        contractors = []
        for i, (nm, (role, quote, lic, rating, flag)) in enumerate(zip(names, specs, strict=True)):
            slug = re.sub(r"[^a-z]+", "-", nm.lower()).strip("-")
            acct = f"62{int(rng.integers(10, 99))} {int(rng.integers(1000, 9999))} {int(rng.integers(1000, 9999))} {int(rng.integers(1000, 9999))}"
            contractors.append(R.Contractor(f"c{i}", nm, f"{slug}.example", acct, quote, lic, rating, flag, role))
        order = rng.permutation(len(contractors)).tolist()
        contractors = [contractors[i] for i in order]
        # ---- materials
        w = int(rng.choice([240, 250, 260, 270, 280]))
        cats = [
            R.Category("cabinet", "base cabinet set", "地柜组合", "width_cm", "total width", w - 10, w, "cm"),
            R.Category("worktop", "worktop", "台面", "length_cm", "length", w, w + 10, "cm"),
            R.Category("hob", "built-in hob", "嵌入式灶具", "cutout_mm", "cut-out width", 540, 560, "mm"),
        ]
        prices = {"cabinet": (6000, 11000), "worktop": (1800, 4500), "hob": (1500, 3500)}
        items: list[R.Item] = []
        for cat in cats:
            lo, hi = prices[cat.key]
            p0 = int(rng.integers(lo, hi)) * 100
            p1 = ceil100(p0 * float(rng.uniform(1.02, 1.05)))
            p2 = ceil100(p1 * float(rng.uniform(1.08, 1.2)))
            rows = [
                ("valid", p0),
                ("valid", p1),
                ("valid", p2),
                ("near_miss", ceil100(p0 * float(rng.uniform(0.8, 0.95)))),
            ]
            brands = list(BRANDS[cat.key])
            rng.shuffle(brands)
            for j, (role, price) in enumerate(rows):
                if role == "valid":
                    size = int(rng.integers(cat.lo, cat.hi + 1))
                elif cat.key == "worktop":
                    size = cat.lo - int(rng.integers(5, 16))
                else:
                    size = cat.hi + int(rng.integers(10, 31))
                model = f"{cat.key[:2].upper()}-{int(rng.integers(100, 999))}"
                items.append(
                    R.Item(
                        cat.key,
                        f"prd_{cat.key}_{j}",
                        f"sku_{cat.key}_{j}",
                        brands[j],
                        f"{brands[j]} {model} {cat.en}, {cat.label} {size} {cat.unit}",
                        price,
                        size,
                        role,
                    )
                )
        perm = rng.permutation(len(items)).tolist()
        items = [items[i] for i in perm]
        cheapest = (
            q0 * 100
            + sum(min(i.price for i in items if i.cat == c.key and i.role == "valid") for c in cats)
            + R.SHIPPING
        )
        second = (
            q1 * 100
            + sum(sorted(i.price for i in items if i.cat == c.key and i.role == "valid")[1] for c in cats)
            + R.SHIPPING
        )
        tight = any(isinstance(p, R.PriceRise) for p in probes)
        factor = float(rng.uniform(1.05, 1.10) if tight else rng.uniform(1.05, 1.22))
        cap = ceil100(max(cheapest * factor, second + 10000) / 100)
        plumber, pdomain = PLUMBERS[int(rng.integers(0, len(PLUMBERS)))]
        s = R.RenoStory(
            user_key="u1",
            name=name,
            email=f"{name.split()[0].lower()}.{name.split()[-1].lower()}@mail.example",
            lang=lang,
            tz=tz,
            kickoff=kickoff,
            end=start,
            partner=partner,
            city=CITIES[int(rng.integers(0, len(CITIES)))],
            checking="acc_current",
            account_no=f"6222 {int(rng.integers(1000, 9999))} {int(rng.integers(1000, 9999))} {int(rng.integers(1000, 9999))}",
            id_number=f"31010{int(rng.integers(1000000000000, 9999999999999))}",
            contractors=contractors,
            cats=cats,
            items=items,
            cap=cap,
            qmax=qmax,
            min_rating=min_rating,
            plumber_name=plumber,
            plumber_email=f"master.{plumber.lower()}@{pdomain}",
        )
        s.extras["cheapest"] = cheapest
        s.extras["busy"] = []
        self._timeline(s, rng)
        return s


FAMILY = KitchenRemodel()
