"""A lived-in mailbox: the background mail of a person's inbox, for the paper level.

The VibeLifeBench paper's tasks open on inboxes of ~176 messages; an instance whose inbox holds
only the mails its checks are about labels them by their mere presence. :func:`background`
draws the rest of a life's mail — newsletters, receipts, delivery notices, bank and utility
notices, threads with friends and family, community notices, and near-namesakes of the
instance's own correspondents (a supplier whose name shares a word with the user's plumber) —
dated before the episode begins, read or unread as a person leaves them. Every one of them is
genuine: none asks for money or data, so none is a decoy a check expects to be quarantined,
and moving one to Spam or deleting it is the agent's mistake to answer for (the checks that
keep "the genuine mail intact" may name them).

All draws come from the generator passed in; the same generator state gives the same mails.
"""

from __future__ import annotations

import zlib
from dataclasses import dataclass
from datetime import datetime, timedelta

import numpy as np

from vibelife_env.services.email import seed as mail_seed

SHOPS = ["Harbour Books", "Greenleaf Grocers", "Nimbus Electronics", "Maple Home Goods", "Tidewater Outdoor"]
FRIENDS = ["Ana", "Ben", "Chen Yu", "Dmitri", "Elif", "Farah", "Gao Lei", "Hana"]
NEWS = [
    ("This week's picks", "New arrivals and a 10% member discount this weekend. Unsubscribe any time."),
    ("Your monthly digest", "The most read stories of the month, chosen for you."),
    ("Spring sale starts Friday", "Up to 30% off selected lines, in store and online."),
]
NOTICES = [
    ("community@residents.example", "Lift maintenance on Thursday", "The east lift is out of service 09:00-12:00."),
    ("water@cityutilities.example", "Your water statement is ready", "Your quarterly statement is in your account."),
    ("noreply@cinema.example", "Your tickets", "Two tickets, Screen 3, Saturday 19:30. Enjoy the film."),
    ("library@citylibrary.example", "A book is due soon", "Your loan 'The Long Way Home' is due in 3 days."),
]
THREADS = [
    ("Dinner next week?", "Are you free Tuesday or Wednesday? The new noodle place is supposed to be good."),
    ("Photos from the weekend", "Here are the photos. The one by the lake came out best!"),
    ("Re: moving boxes", "I still have a few if you need them, just say."),
    ("Birthday plans", "We're thinking of a picnic if the weather holds. Ideas welcome."),
]


@dataclass(frozen=True)
class Background:
    """The drawn mails: their Message-IDs (for checks that keep genuine mail intact) and SQL."""

    message_ids: tuple[str, ...]
    sql: str
    #: The near-namesakes' Message-IDs among them (genuine mail a check may keep intact).
    namesakes: tuple[str, ...] = ()


def bulk_message_id(key: str) -> str:
    """A bulk mailer's Message-ID for a scripted mail (a scam, a notice): a number derived from
    ``key``, nothing that says what the mail is (the mailbox lists every mail's Message-ID)."""
    return f"<{zlib.crc32(key.encode()):010d}@mx.mailout.example>"


def _message_id(n: int, sender: str, at: datetime) -> str:
    """A Message-ID as a mail server writes one (a number at the sender's domain): nothing in it
    says the mail is background or a namesake, which the mailbox would show an agent."""
    digest = zlib.crc32(f"{n}|{sender}|{at.isoformat()}".encode())
    return f"<{digest:08x}.{at.strftime('%Y%m%d%H%M')}@{sender.split('@')[1]}>"


def background(
    rng: np.random.Generator,
    to: str,
    before: datetime,
    count: int,
    *,
    namesakes: tuple[str, ...] = (),
    days: int = 60,
) -> Background:
    """``count`` genuine mails to ``to`` dated within ``days`` before ``before``.

    ``namesakes``: names of the instance's own correspondents; each gets a near-namesake sender
    (its first word plus another trade) among the mails, so a search by one word finds both.
    """
    made: list[tuple[str, str, str, datetime, str, bool]] = []  # id, subject, sender, at, body, read
    kinds = ["news", "receipt", "notice", "thread", "delivery"]
    for i in range(count):
        at = before - timedelta(minutes=int(rng.integers(60, days * 24 * 60)))
        kind = kinds[int(rng.integers(0, len(kinds)))]
        read = bool(rng.random() < 0.7)
        if kind == "news":
            shop = SHOPS[int(rng.integers(0, len(SHOPS)))]
            subject, body = NEWS[int(rng.integers(0, len(NEWS)))]
            sender = f"news@{shop.split()[0].lower()}.example"
            subject = f"{shop}: {subject}"
        elif kind == "receipt":
            shop = SHOPS[int(rng.integers(0, len(SHOPS)))]
            order, amount = int(rng.integers(100000, 999999)), int(rng.integers(20, 900))
            sender, subject = f"orders@{shop.split()[0].lower()}.example", f"Receipt for order {order}"
            body = f"Thank you for your order {order} at {shop}. Paid: {amount}.00 CNY by card. No action needed."
        elif kind == "notice":
            sender, subject, body = NOTICES[int(rng.integers(0, len(NOTICES)))]
        elif kind == "thread":
            friend = FRIENDS[int(rng.integers(0, len(FRIENDS)))]
            subject, body = THREADS[int(rng.integers(0, len(THREADS)))]
            sender = f"{friend.lower().replace(' ', '.')}@mail.example"
        else:
            parcel = f"SF{int(rng.integers(10**9, 10**10))}"
            sender, subject = "notify@swiftparcel.example", f"Parcel {parcel} delivered"
            body = f"Your parcel {parcel} was delivered to your building's parcel locker."
        made.append((_message_id(i, sender, at), subject, sender, at, body, read))
    namesake_ids: set[str] = set()
    for j, name in enumerate(namesakes):
        word = name.split()[0]
        at = before - timedelta(days=int(rng.integers(3, days)), hours=int(rng.integers(0, 12)))
        sender = f"hello@{word.lower()}-supplies.example"
        body = f"{word} Supplies wholesale catalogue: fittings, tools and spares. Trade prices for members."
        mid = _message_id(count + j, sender, at)
        namesake_ids.add(mid)
        made.append(
            (
                mid,
                f"{word} Supplies: new catalogue",
                sender,
                at,
                body,
                True,
            )
        )
    made.sort(key=lambda m: (m[3], m[0]))
    sql = "\n".join(
        mail_seed.message(mid, subject, sender, to, at, body, read=read)
        for mid, subject, sender, at, body, read in made
    )
    named = tuple(m[0] for m in made if m[0] in namesake_ids)
    return Background(tuple(m[0] for m in made), sql, named)
