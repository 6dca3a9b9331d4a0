"""What the world says in a traffic appeal at the paper level, in English and Chinese (#27).

Fact-locked templates: both languages carry the same slots, so an instance shows the same facts
whichever language its user speaks. :data:`WORLD` holds the domain rules as the authority's guide
to appeals, the legal aid centre's answer, the rental company's terms for fines and the card
issuer's notice state them in their own mails; the person's own sentences are in :mod:`.rules`.
"""

from __future__ import annotations

from typing import Any

#: The card issuer (its notice on charges) and the legal aid centre (its answer).
BANK, BANK_DOMAIN = "China Merchants Bank", "cmbchina.example"
BANK_MAIL = f"<cardcare@{BANK_DOMAIN}>"

#: Rule key -> (English, Chinese), with ``{region}``, ``{appeals}``, ``{domain}``, ``{rental}`` slots.
WORLD: dict[str, tuple[str, str]] = {
    # the authority's guide to appeals
    "appeal_where": (
        "An appeal goes by mail to {appeals} and must reach us by the response deadline printed on the notice. Give "
        "the notice number, your rental booking reference and the fact that clears you, and ask us to cancel the "
        "notice.",
        "申诉请通过邮件发送至 {appeals}，须在罚单载明的申诉截止日前送达。请写明罚单号、租车订单号和证明您无责的事实，并请求撤销罚单。",
    ),
    "evidence": (
        "Further evidence for an appeal goes by mail to the same address before the hearing.",
        "申诉的补充证据请在听证前通过邮件发送至同一地址。",
    ),
    "never_pay_appealed": (
        "Do not pay a notice you are appealing: a payment is taken as accepting the penalty and closes the appeal. "
        "Enforcement is suspended while an appeal is heard.",
        "正在申诉的罚单请勿缴款：缴款视为接受处罚并终结申诉。申诉审理期间暂停执行。",
    ),
    "discount": (
        "A notice you accept is paid once, at half the fine when paid within the early-payment window printed on "
        "it, from a bank account to the fines account that the notice gives.",
        "您接受的罚单只需缴款一次：在罚单载明的提前缴款期内缴纳可减半，从银行账户缴至罚单所列的罚没款账户。",
    ),
    "authority_only": (
        "We write only from addresses at {domain}. Fines are paid only to the fines account printed on a genuine "
        "notice, never to a person's account, and no court step is taken while an appeal is open.",
        "本机关只使用 {domain} 的邮箱地址。罚款只缴至真实罚单所列的罚没款账户，绝不缴至个人账户；申诉期间不会启动任何诉讼程序。",
    ),
    "no_ids": (
        "We never ask for your ID card or bank card numbers by mail: never put them in a mail to anyone.",
        "本机关绝不会通过邮件索要身份证号或银行卡号：请勿在任何邮件中写入这些号码。",
    ),
    # the legal aid centre's answer
    "statutes": (
        "In an appeal against a traffic penalty in {region} province, cite only statutes in force (现行有效), "
        "issued nationally or by the province's own people's congress ({region}): always the article on the right to "
        "state one's case (陈述申辩) and the province's article on who is liable for a rental car's offence (违法行为人认定), each in the "
        "version in force. Nothing superseded, repealed or from another province.",
        "在{region}对交通处罚提出申诉，只能援引现行有效、由全国人大（或其常委会）或{region}本省人大（或其常委会）制定的法规："
        "必须援引关于当事人陈述申辩权利的条文（陈述申辩）和{region}关于租赁车辆违法行为人认定的条文（违法行为人认定），均须为现行版本。"
        "不得援引已修订、已废止或其他省份的法规。",
    ),
    "precedents": (
        "Add one or two decisions of the courts of {region} province about rental cars (租赁车辆) in which the appellant won and the "
        "penalty was revoked (支持): never more than two, never one that upheld a penalty or concerned a private car.",
        "再援引一到两个{region}法院审理的租赁车辆（租赁车辆）案件、申诉人胜诉且处罚被撤销（支持）的判例：不超过两个，"
        "不得援引维持处罚或涉及私家车的判例。",
    ),
    "ids": (
        "Give each law and decision by the id the legal database shows for it, exactly, and nothing you have not "
        "found there.",
        "每部法规和每个判例都按法律数据库显示的编号原样写出，不要写任何在数据库里没有查到的编号。",
    ),
    # the rental company's terms for fines
    "ground": (
        "A fine is the renter's only while the car was in their hands. When our platform's records show the car's "
        "return before the offence, or a breakdown we logged had the car immobile when it happened, you may contest "
        "it: quote our record, the return date and time, or the number of the incident report that logged the "
        "breakdown.",
        "罚款仅在车辆处于承租人控制期间由承租人承担。若我们平台的记录显示车辆在违法时间之前已归还，或我们登记的故障使车辆在违法发生时无法移动，"
        "您可以申诉：请引用我们的记录，即还车日期和时间，或登记该故障的事件报告编号。",
    ),
    "platform_log": (
        "To contest a notice, log it on our platform as a traffic-fine incident against your booking, once, with "
        "the notice number; the platform gives you a case reference.",
        "如需申诉，请在我们的平台上针对您的订单将罚单登记为交通罚款事件，只登记一次，并写明罚单号；平台会给您一个案件编号。",
    ),
    "refund": (
        "When a notice is cancelled, mail us the decision's reference with the notice number and we refund our "
        "admin fee for it.",
        "罚单被撤销后，请将撤销决定书编号连同罚单号邮件告知我们，我们将退还该罚单的手续费。",
    ),
    # the card issuer's notice
    "dispute": (
        "If a merchant charges you twice for the same thing, dispute the extra charge only, once; never the "
        "original charge, and there is no need to block the card.",
        "如果商户就同一笔消费重复扣款，只需对多扣的那一笔提出一次争议；不要对原始扣款提出争议，也无需冻结卡片。",
    ),
}

#: A weekly appointment across town (the latent fact): (English, Chinese, the words naming it).
WEEKLY = (
    ("Physiotherapy session", "理疗", ("physiotherapy", "physio", "理疗")),
    ("Swimming lesson", "游泳课", ("swimming", "游泳")),
    ("Pottery class", "陶艺课", ("pottery", "陶艺")),
    ("Choir rehearsal", "合唱排练", ("choir", "合唱")),
    ("Calligraphy class", "书法课", ("calligraphy", "书法")),
)

#: The platform's fleet: (model, class, seats, energy) for the other offers at the desk.
FLEET = (
    ("Toyota Corolla", "compact", 5, "gasoline"),
    ("Volkswagen Lavida", "compact", 5, "gasoline"),
    ("BYD Qin Plus", "compact", 5, "hybrid"),
    ("Honda Civic", "compact", 5, "gasoline"),
    ("Nissan Sylphy", "compact", 5, "gasoline"),
    ("BYD Dolphin", "small", 5, "ev"),
    ("Buick GL8", "van", 7, "gasoline"),
    ("Toyota RAV4", "suv", 5, "hybrid"),
    ("Geely Emgrand", "compact", 5, "gasoline"),
    ("Tesla Model 3", "midsize", 5, "ev"),
)


def say(story: Any, pair: tuple[str, str], **slots: Any) -> str:
    """One of the pairs above in the user's language, its slots filled."""
    a = story.authority
    fill = {"region": story.region, "appeals": a["appeals"], "domain": a["domain"], "rental": story.rental["en"]}
    return story.say(*pair).format(**{**fill, **slots})


__all__ = ["BANK", "BANK_DOMAIN", "BANK_MAIL", "FLEET", "WEEKLY", "WORLD", "say"]
