"""visa_and_advisory: entry requirements, visa products, the application lifecycle, advisories.

Tool surface: the public ``visa_and_advisory_mock`` spec (ten tools). Country codes are
ISO 3166-1 alpha-2 (case-insensitive; ``EU`` and ``*`` are accepted too). Applications
move ``draft`` → (submit) ``processing``; decisions (``rfi``, ``approved``, ``rejected``,
...) arrive through timeline mutations, and an ``rfi`` application can be resubmitted.
Submission checks the product's required form fields and documents and, when the
passport expiry and entry date are known, the destination's passport-validity rule.
Ids come from ``_counters`` (``va_0001``, ``doc_0001``, ``sub_0001``); times are the
virtual clock's ISO-8601 with offset.

Error codes come from the shared vocabulary (:data:`vibelife_env.errors.ERROR_CODES`): the
upper-case form of the SPEC's, with every argument error ``BAD_ARG`` (the SPEC's
``validation_error``, ``invalid_purpose``, ``invalid_kind``) and ``BAD_STATE`` for its
``invalid_state``. Besides them: ``NOT_FOUND``, ``PRODUCT_NOT_FOUND``,
``MISSING_FIELDS``, ``MISSING_DOCUMENTS``, ``PASSPORT_VALIDITY_INSUFFICIENT``.
"""

from __future__ import annotations

import calendar
import re
from datetime import date, datetime
from typing import Any

from vibelife_env.services.base import Service, ToolError, schema_from, tool
from vibelife_env.services.common import dumps, loads

PURPOSES = ("tourism", "business", "transit")
DOC_KINDS = ("passport", "photo", "itinerary", "bank_statement")
SUBMITTABLE = ("draft", "rfi")
#: Decided applications accept no further documents.
CLOSED = ("approved", "approved_with_conditions", "rejected", "issued", "in_force", "cancelled", "withdrawn")
_ALPHA2 = re.compile(r"^[A-Z]{2}$")


class VisaAndAdvisoryService(Service):
    """Entry rules, visa products and applications, and travel advisories."""

    name = "visa_and_advisory"
    SCHEMA = schema_from(__file__)

    # ------------------------------------------------------------------ entry rules
    @tool(read_only=True)
    def check_entry_requirements(
        self, nationality: str, destination: str, purpose: str, transit_countries: list[str] | None = None
    ) -> dict[str, Any]:
        """Look up the entry rule for a nationality, destination and purpose.

        Returns visa_required, allowed_stay_days, passport_validity_months, docs_needed,
        notes and source ("seeded_matrix", or "default_fallback" = treat as visa
        required). A business/transit query without its own rule falls back to the
        tourism rule (fallback: true). transit_advice lists each transit country's rule
        (max_hours of visa-free transit).

        Args:
            nationality: Passport country, ISO alpha-2 (e.g. "CN").
            destination: Destination country, ISO alpha-2 (e.g. "JP").
            purpose: One of "tourism", "business", "transit".
            transit_countries: Ordered ISO alpha-2 codes of transit stops, if any.
        """
        nat, dest = _country(nationality), _country(destination)
        if purpose not in PURPOSES:
            raise ToolError("BAD_ARG", f"invalid purpose {purpose!r}; must be one of {PURPOSES}")
        rule = self._rule(nat, dest, purpose)
        fallback = False
        if rule is None and purpose != "tourism":
            rule = self._rule(nat, dest, "tourism")
            fallback = rule is not None
        out: dict[str, Any] = {"nationality": nat, "destination": dest, "purpose": purpose}
        if rule is not None:
            out |= {
                "visa_required": bool(rule["visa_required"]),
                "allowed_stay_days": int(rule["allowed_stay_days"] or 0),
                "passport_validity_months": int(rule["passport_validity_months"]),
                "docs_needed": _json(rule["docs_needed_json"], []),
                "notes": rule["notes"],
                "source": "seeded_matrix",
            }
        else:
            out |= {
                "visa_required": True,
                "allowed_stay_days": 0,
                "passport_validity_months": 6,
                "docs_needed": ["passport"],
                "notes": "No seeded rule; treat as visa-required.",
                "source": "default_fallback",
            }
        if fallback:
            out["fallback"] = True
        advice = []
        for raw in transit_countries or []:
            code = raw.strip().upper()
            if not _ALPHA2.match(code):
                continue
            t = self._rule(nat, code, "transit")
            if t is None:
                advice.append(
                    {
                        "country": code,
                        "visa_required": True,
                        "max_hours": 0,
                        "notes": "No seeded transit rule; assume transit visa required.",
                    }
                )
            else:
                advice.append(
                    {
                        "country": code,
                        "visa_required": bool(t["visa_required"]),
                        "max_hours": int(t["allowed_stay_days"] or 0) * 24,
                        "notes": t["notes"],
                    }
                )
        if advice:
            out["transit_advice"] = advice
        return out

    # ------------------------------------------------------------------ products
    @tool(read_only=True)
    def list_visa_products(self, nationality: str, destination: str) -> list[dict[str, Any]]:
        """List visa products for a nationality and destination, fastest processing first.

        Args:
            nationality: Applicant's passport country, ISO alpha-2.
            destination: Destination country, ISO alpha-2.
        """
        rows = self.query(
            "SELECT * FROM visa_products WHERE destination = ? AND nationality = ? "
            "ORDER BY processing_time_days, product_id",
            (_country(destination), _country(nationality)),
        )
        return [_product_summary(r) for r in rows]

    @tool(read_only=True)
    def get_visa_product(self, product_id: str) -> dict[str, Any]:
        """Full details of a visa product: fee, processing days, delivery and form schema.

        fee_amount is in whole units of fee_currency. form_schema lists the form fields
        (required ones must be answered on submit) and required_docs (document kinds).

        Args:
            product_id: The product id from list_visa_products.
        """
        return {**_product_summary(p := self._product(product_id)), **_product_extra(p)}

    # ------------------------------------------------------------------ applications
    @tool
    def start_visa_application(self, product_id: str, applicant_profile: dict[str, Any]) -> dict[str, Any]:
        """Start a draft application for a product.

        Returns the new application_id (status draft), the form fields that submission
        will require and the required document kinds.

        Args:
            product_id: The visa product to apply for.
            applicant_profile: Applicant details, e.g. {"user_id": "u1", "name": "...", "nationality": "CN", "passport_expiry": "2030-01-01"}; user_id defaults to "anon".
        """
        product = self._product(product_id)
        app_id = f"va_{self._next('application'):04d}"
        now = self.now_iso()
        history = [{"at": now, "from": None, "to": "draft", "note": "application created"}]
        self.execute(
            "INSERT INTO visa_applications (application_id, user_id, product_id, status, applicant_json, "
            "answers_json, history_json, created_at, updated_at) VALUES (?, ?, ?, 'draft', ?, '{}', ?, ?, ?)",
            (
                app_id,
                str(applicant_profile.get("user_id") or "anon"),
                product_id,
                dumps(applicant_profile),
                dumps(history),
                now,
                now,
            ),
        )
        return {
            "application_id": app_id,
            "status": "draft",
            "form_fields_required": _required_fields(product),
            "required_docs": _required_docs(product),
        }

    @tool
    def upload_document(self, application_id: str, kind: str, doc_ref: str) -> dict[str, Any]:
        """Attach a document reference to an application.

        Args:
            application_id: The application to attach to.
            kind: passport, photo, itinerary, bank_statement, or any kind the product's required_docs names.
            doc_ref: Opaque reference to the document, e.g. a workspace path.
        """
        app = self._application(application_id)
        allowed = {*DOC_KINDS, *_required_docs(self._product(app["product_id"]))}
        if kind not in allowed:
            raise ToolError("BAD_ARG", f"invalid document kind {kind!r}; must be one of {sorted(allowed)}")
        if not doc_ref.strip():
            raise ToolError("BAD_ARG", "doc_ref must be a non-empty string")
        if app["status"] in CLOSED:
            raise ToolError("BAD_STATE", f"application {application_id!r} is {app['status']}; no documents accepted")
        doc_id = f"doc_{self._next('document'):04d}"
        now = self.now_iso()
        self.execute(
            "INSERT INTO application_documents (doc_id, application_id, kind, ref, uploaded_at) VALUES (?, ?, ?, ?, ?)",
            (doc_id, application_id, kind, doc_ref, now),
        )
        self.execute("UPDATE visa_applications SET updated_at = ? WHERE application_id = ?", (now, application_id))
        return {"ok": True, "doc_id": doc_id, "application_id": application_id, "kind": kind}

    @tool
    def submit_visa_application(
        self, application_id: str, answers: dict[str, Any], docs_refs: list[str], payment_method_id: str
    ) -> dict[str, Any]:
        """Submit a draft (or RFI'd) application; it moves to processing.

        Every required form field must be in answers and every required document kind
        must be uploaded (docs_refs may name uploaded doc_ids). If passport_expiry and
        travel_start (or entry_date) are known, the passport must stay valid for the
        destination's required months after entry. The payment method for the fee is
        recorded with the answers.

        Args:
            application_id: The application to submit.
            answers: Form answers keyed by field name.
            docs_refs: doc_ids of uploaded documents to include.
            payment_method_id: Payment method for the fee.
        """
        app = self._application(application_id)
        if app["status"] not in SUBMITTABLE:
            raise ToolError(
                "BAD_STATE", f"application {application_id!r} cannot be submitted from status {app['status']!r}"
            )
        product = self._product(app["product_id"])
        missing = [f for f in _required_fields(product) if f not in answers]
        if missing:
            raise ToolError("MISSING_FIELDS", f"missing required fields: {missing}")
        present = {
            r["kind"]
            for r in self.query(
                "SELECT DISTINCT kind FROM application_documents WHERE application_id = ?", (application_id,)
            )
        }
        for ref in docs_refs:
            doc = self.query_one(
                "SELECT kind FROM application_documents WHERE doc_id = ? AND application_id = ?", (ref, application_id)
            )
            if doc is not None:
                present.add(doc["kind"])
        missing_docs = [k for k in _required_docs(product) if k not in present]
        if missing_docs:
            raise ToolError("MISSING_DOCUMENTS", f"missing required documents: {missing_docs}")
        applicant = _json(app["applicant_json"], {})
        self._check_passport(applicant, answers, product)
        if not payment_method_id.strip():
            raise ToolError("BAD_ARG", "payment_method_id must not be empty")
        merged = {**answers, "payment": {"payment_method_id": payment_method_id}}
        history = _json(app["history_json"], [])
        now = self.now_iso()
        history.append(
            {"at": now, "from": app["status"], "to": "processing", "note": "submitted (user-visible: submitted)"}
        )
        self.execute(
            "UPDATE visa_applications SET status = 'processing', answers_json = ?, history_json = ?, updated_at = ? "
            "WHERE application_id = ?",
            (dumps(merged), dumps(history), now, application_id),
        )
        return {
            "application_id": application_id,
            "status": "submitted",
            "processing_time_days": int(product["processing_time_days"]),
        }

    @tool(read_only=True)
    def get_visa_application(self, application_id: str) -> dict[str, Any]:
        """Full state of an application: status, applicant, answers, decision, documents and history.

        Args:
            application_id: The application id.
        """
        app = self._application(application_id)
        docs = self.query(
            "SELECT doc_id, kind, ref, uploaded_at FROM application_documents WHERE application_id = ? "
            "ORDER BY uploaded_at, doc_id",
            (application_id,),
        )
        return {
            "application_id": app["application_id"],
            "user_id": app["user_id"],
            "product_id": app["product_id"],
            "status": app["status"],
            "applicant": _json(app["applicant_json"], {}),
            "answers": _json(app["answers_json"], {}),
            "decision_day": app["decision_day"],
            "decision_note": app["decision_note"],
            "evisa_doc_ref": app["evisa_doc_ref"],
            "documents": docs,
            "history": _json(app["history_json"], []),
            "created_at": app["created_at"],
            "updated_at": app["updated_at"],
        }

    @tool(read_only=True)
    def list_visa_applications(self, user_id: str) -> list[dict[str, Any]]:
        """List a user's applications, newest first (application_id, product_id, status, decision_day).

        Args:
            user_id: The applicant's user id.
        """
        rows = self.query(
            "SELECT application_id, product_id, status, decision_day FROM visa_applications WHERE user_id = ? "
            "ORDER BY created_at DESC, application_id DESC",
            (user_id,),
        )
        return rows

    # ------------------------------------------------------------------ advisories
    @tool(read_only=True)
    def get_advisory(self, country_code: str) -> dict[str, Any]:
        """The current travel advisory for a country: level 1 (normal) to 4 (do not travel) and text.

        Args:
            country_code: ISO alpha-2 country code.
        """
        code = _country(country_code)
        row = self.query_one("SELECT * FROM advisories WHERE country_code = ?", (code,))
        if row is None:
            return {"country_code": code, "level": 1, "text": "No advisory on file.", "last_updated": None}
        return {
            "country_code": code,
            "level": int(row["level"]),
            "text": row["text"],
            "last_updated": row["updated_at"],
        }

    @tool
    def subscribe_advisory(self, country_code: str, sink: str) -> dict[str, Any]:
        """Subscribe a delivery address (opaque sink) to advisory updates for a country.

        Args:
            country_code: ISO alpha-2 country code.
            sink: Where updates go, e.g. "memory://travel" or an email address.
        """
        code = _country(country_code)
        if not sink.strip():
            raise ToolError("BAD_ARG", "sink must not be empty")
        sub_id = f"sub_{self._next('subscription'):04d}"
        self.execute(
            "INSERT INTO advisory_subscriptions (sub_id, country_code, sink, created_at) VALUES (?, ?, ?, ?)",
            (sub_id, code, sink, self.now_iso()),
        )
        return {"subscription_id": sub_id, "country_code": code, "sink": sink}

    # ------------------------------------------------------------------ helpers
    def _rule(self, nat: str, dest: str, purpose: str) -> dict[str, Any] | None:
        return self.query_one(
            "SELECT * FROM entry_requirements WHERE origin_nationality = ? AND destination = ? AND purpose = ?",
            (nat, dest, purpose),
        )

    def _product(self, product_id: str) -> dict[str, Any]:
        return self.require(
            "SELECT * FROM visa_products WHERE product_id = ?",
            (product_id,),
            "PRODUCT_NOT_FOUND",
            f"product {product_id!r} not found",
        )

    def _application(self, application_id: str) -> dict[str, Any]:
        return self.require(
            "SELECT * FROM visa_applications WHERE application_id = ?",
            (application_id,),
            "NOT_FOUND",
            f"application {application_id!r} not found",
        )

    def _check_passport(self, applicant: dict[str, Any], answers: dict[str, Any], product: dict[str, Any]) -> None:
        expiry_raw = answers.get("passport_expiry") or applicant.get("passport_expiry")
        entry_raw = answers.get("travel_start") or answers.get("entry_date") or applicant.get("travel_start")
        expiry, entry = _date(expiry_raw), _date(entry_raw)
        nationality = answers.get("nationality") or applicant.get("nationality")
        if expiry is None or entry is None or not isinstance(nationality, str):
            return
        nat, dest = nationality.strip().upper(), product["destination"].strip().upper()
        rule = self._rule(nat, dest, "tourism")
        months = int(rule["passport_validity_months"]) if rule else 6
        if months <= 0:
            return
        cutoff = _add_months(entry, months)
        if expiry < cutoff:
            raise ToolError(
                "PASSPORT_VALIDITY_INSUFFICIENT",
                f"passport_expiry {expiry_raw!r} is before the {dest} minimum ({months} months after entry "
                f"{entry_raw!r}; cutoff {cutoff.isoformat()})",
            )

    def _next(self, name: str) -> int:
        self.execute("INSERT OR IGNORE INTO _counters (name, value) VALUES (?, 0)", (name,))
        self.execute("UPDATE _counters SET value = value + 1 WHERE name = ?", (name,))
        row = self.query_one("SELECT value FROM _counters WHERE name = ?", (name,))
        return int(row["value"]) if row else 1


def _country(code: str) -> str:
    norm = code.strip().upper()
    if not (_ALPHA2.match(norm) or norm in ("*", "EU")):
        raise ToolError("BAD_ARG", f"invalid ISO alpha-2 country code: {code!r}")
    return norm


def _json(raw: Any, default: Any) -> Any:
    value = loads(raw, default)
    return value if isinstance(value, type(default)) else default


def _date(value: Any) -> date | None:
    if not isinstance(value, str) or len(value) < 10:
        return None
    try:
        return date.fromisoformat(value[:10])
    except ValueError:
        try:
            return datetime.fromisoformat(value.replace("Z", "+00:00")).date()
        except ValueError:
            return None


def _add_months(d: date, months: int) -> date:
    year = d.year + (d.month - 1 + months) // 12
    month = (d.month - 1 + months) % 12 + 1
    return d.replace(year=year, month=month, day=min(d.day, calendar.monthrange(year, month)[1]))


def _schema(product: dict[str, Any]) -> dict[str, Any]:
    return _json(product["form_schema_json"], {})


def _required_fields(product: dict[str, Any]) -> list[str]:
    """Required form fields: ``fields`` entries flagged required, plus a ``required_fields`` list."""
    schema = _schema(product)
    names = [f["name"] for f in schema.get("fields") or [] if isinstance(f, dict) and f.get("required") and "name" in f]
    names += [n for n in schema.get("required_fields") or [] if isinstance(n, str) and n not in names]
    return names


def _required_docs(product: dict[str, Any]) -> list[str]:
    return [k for k in _schema(product).get("required_docs") or [] if isinstance(k, str)]


def _product_summary(p: dict[str, Any]) -> dict[str, Any]:
    return {
        "product_id": p["product_id"],
        "name": p["name"],
        "processing_time_days": int(p["processing_time_days"]),
        "fee_amount": int(p["fee_amount"]),
        "fee_currency": p["fee_currency"],
        "delivery": p["delivery"],
    }


def _product_extra(p: dict[str, Any]) -> dict[str, Any]:
    return {"destination": p["destination"], "nationality": p["nationality"], "form_schema": _schema(p)}
