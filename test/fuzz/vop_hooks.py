"""Schemathesis hooks: what an OpenAPI document cannot say about the service's inputs.

A JSON Schema pattern cannot carry a check-digit rule, so the document names the formats (`iban`,
`bic`) and these strategies generate values that pass them; a UK account number must pass VocaLink's
modulus check against its sort code, which spans two fields, so well-formed pairs are replaced with pairs
the test found valid (VOP_FUZZ_UK_ACCOUNTS, "sortcode:accountnumber,..."). Ill-formed values, which the
fuzzer generates on purpose to see them refused, are left as they are.
"""

import os
import re
import unicodedata
from datetime import datetime, timezone

import schemathesis
from hypothesis import strategies as st


def _german_iban(bban: str) -> str:
    # ISO 13616: check digits make (BBAN + "DE00" with letters as numbers) mod 97 equal 1.
    check = 98 - int(bban + "131400") % 97
    return f"DE{check:02d}{bban}"


schemathesis.openapi.format(
    "iban", st.text(alphabet="0123456789", min_size=18, max_size=18).map(_german_iban)
)
schemathesis.openapi.format(
    "bic",
    st.sampled_from(["COBADEFFXXX", "DEUTDEFFXXX", "BNPAFRPPXXX", "INGBNL2A", "BSCHESMMXXX"]),
)

_PAIRS = [
    tuple(pair.split(":", 1))
    for pair in os.environ.get("VOP_FUZZ_UK_ACCOUNTS", "").split(",")
    if ":" in pair
]
_SORT_CODE = re.compile(r"^\d{2}[-\s]?\d{2}[-\s]?\d{2}$")
_ACCOUNT_NUMBER = re.compile(r"^\d{8}$")


def _repair(holder: dict, index: int) -> None:
    sort_code, account_number = holder.get("sortCode"), holder.get("accountNumber")
    if not (isinstance(sort_code, str) and isinstance(account_number, str) and _PAIRS):
        return
    if _SORT_CODE.match(sort_code) and _ACCOUNT_NUMBER.match(account_number.replace(" ", "")):
        holder["sortCode"], holder["accountNumber"] = _PAIRS[index % len(_PAIRS)]


_URL = re.compile(r"^(https?)://[^/?#]+(.*)$")


def _resolvable_receiver(body: dict) -> None:
    # The webhook address guard resolves a receiver's host at registration (design §4, SSRF guard); the
    # test machine has no DNS for generated names, so a well-formed URL is pointed at 127.0.0.1, which
    # the fuzz run's VOP_WEBHOOK_ALLOWED_NETWORKS admits.
    url = body.get("url")
    if isinstance(url, str) and isinstance(body.get("events"), list):
        match = _URL.match(url)
        if match:
            body["url"] = f"{match.group(1)}://127.0.0.1{match.group(2)}"


def _unique_entry_ids(body: dict) -> None:
    # A batch refuses two entries with one id (DUPLICATE_ENTRY_ID); JSON Schema cannot say "unique by a
    # field", so repeated ids among well-formed entries get a suffix.
    entries = body.get("verifications")
    if not isinstance(entries, list):
        return
    seen = set()
    for index, entry in enumerate(entries):
        if isinstance(entry, dict) and isinstance(entry.get("id"), str):
            if entry["id"] in seen:
                entry["id"] = f"{entry['id']}-{index}"[:100]
            seen.add(entry["id"])


def _toolkit_within_the_fuzz_run(body: dict) -> None:
    # Test toolkit (family I): there is no other PSP's responder to run the suite against here, so a
    # `target` is left out; a well-formed load run is made the smallest (1 user, 1 s) so it does not
    # load the service under the rest of the run. Malformed ones stay, to be refused.
    if body.get("testSuite") == "scheme139-25":
        body.pop("target", None)
    if isinstance(body.get("concurrentUsers"), int) and isinstance(body.get("duration"), str):
        if 1 <= body["concurrentUsers"] <= 50 and re.match(r"^\d+s$", body["duration"]):
            body["concurrentUsers"], body["duration"], body["rampUpTime"] = 1, "1s", "0s"


def _refusable(character: str) -> bool:
    # The service refuses, in every string, format characters and what Unicode renders as nothing
    # (packages/contracts/src/unsafe-characters.ts). The document's patterns state those of the Basic
    # Multilingual Plane; a JSON Schema pattern cannot state those above it, nor where a zero-width
    # joiner is a script's own, so generated text loses them here (the edge's tests try them all).
    code = ord(character)
    return (
        code in (0x200C, 0x200D)
        # A lone surrogate (Python strings may hold one; JSON carries it as an escape) is no character.
        or 0xD800 <= code <= 0xDFFF
        or (code > 0xFFFF and unicodedata.category(character) == "Cf")
        or 0xE0000 <= code <= 0xE0FFF
        or 0x1D173 <= code <= 0x1D17A
        or 0x1BCA0 <= code <= 0x1BCA3
    )


def _without_refusable(value):
    if isinstance(value, str):
        return "".join(character for character in value if not _refusable(character))
    if isinstance(value, list):
        return [_without_refusable(item) for item in value]
    if isinstance(value, dict):
        return {key: _without_refusable(item) for key, item in value.items()}
    return value


@schemathesis.hook
def map_body(context, body):
    body = _without_refusable(body)
    if isinstance(body, dict):
        _toolkit_within_the_fuzz_run(body)
        _resolvable_receiver(body)
        _unique_entry_ids(body)
        _repair(body, len(str(body)))
        if isinstance(body.get("domesticAccount"), dict):
            _repair(body["domesticAccount"], len(str(body)))
    return body


_TIMESTAMP = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3,9}(Z|[+-]\d{2}:\d{2})$")


@schemathesis.hook
def map_headers(context, headers):
    # The EPC path refuses a request timestamp that is no real date or is more than 5 minutes from its
    # clock (TIMESTAMP_INVALID): one of the documented shape becomes "now"; malformed ones stay, to be refused.
    if headers and _TIMESTAMP.match(str(headers.get("X-Request-Timestamp", ""))):
        now = datetime.now(timezone.utc)
        headers["X-Request-Timestamp"] = now.strftime("%Y-%m-%dT%H:%M:%S.") + f"{now.microsecond // 1000:03d}Z"
    return headers


_INSTANT = re.compile(r"^\d{4}-\d{2}-\d{2}T")


@schemathesis.hook
def map_query(context, query):
    # Analytics windows are bounded (at most 31 days of hours, 366 days of days, `from` before `to`):
    # well-formed instants become the last day, so the generated rest of the query is what is tested.
    if query and (_INSTANT.match(str(query.get("from", ""))) or _INSTANT.match(str(query.get("to", "")))):
        now = datetime.now(timezone.utc).replace(microsecond=0)
        if "from" in query:
            query["from"] = (now.replace(hour=0, minute=0, second=0)).isoformat().replace("+00:00", "Z")
        if "to" in query:
            query["to"] = now.isoformat().replace("+00:00", "Z")
    return query
