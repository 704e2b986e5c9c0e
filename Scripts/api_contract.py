#!/usr/bin/env python3
"""Runs schemathesis (API contract fuzzing) against a running clup-server and docs/clup-server.openapi.yaml.

Usage: api_contract.py BASE_URL ADMIN_TOKEN SCHEMA [--max-examples N] [--seed N]

It first makes what every operation needs to get past its credential check, through the API itself: a store
open all day, its manager's session, an enrolled kiosk's credential, a virtual ticket and its holder token.
A ticket or a booking costs a proof of work: the hook below pays it, as the shopper page does, for every
request whose Clup-Work header schemathesis left valid-looking (one it made too long goes out as made).
Then it writes a schemathesis.toml that gives each operation the credential it takes (admin token, manager
session, kiosk credential, holder token), the real ids and an X-Forwarded-For of its own (start the server with
--trusted-proxy 127.0.0.1/32), and runs every check of schemathesis on every
operation. Exit status: schemathesis' own (0 when no check failed).

A few operations validate across fields or against the clock in ways a JSON Schema cannot state (a day's
closing time after its opening, slots per booking at most the capacity, a date or slot start within the
booking horizon from now): for those, "schema-valid data accepted" also allows 400, which must then name the field.
Every other check applies unchanged. The stateful phase is left out (see the command below).
"""

import hashlib
import json
import os
import subprocess
import sys
import tempfile
import urllib.request


def call(base, method, path, token=None, body=None, headers=None):
    request = urllib.request.Request(base + path, method=method)
    if token:
        request.add_header("Authorization", "Bearer " + token)
    for name, value in (headers or {}).items():
        request.add_header(name, value)
    data = None
    if body is not None:
        data = json.dumps(body).encode()
        request.add_header("Content-Type", "application/json")
    with urllib.request.urlopen(request, data=data, timeout=10) as response:
        return json.loads(response.read() or b"{}")


def work(base, store):
    """The store's challenge, solved: the Clup-Work value (see the document's "Proof of work")."""
    asked = call(base, "GET", f"/v1/stores/{store}/work")
    prefix, bits, nonce = asked["challenge"] + ".", asked["bits"], 0
    while int.from_bytes(hashlib.sha256(f"{prefix}{nonce}".encode()).digest()[:4], "big") >> (32 - bits) if bits else 0:
        nonce += 1
    return f"{prefix}{nonce}"


def prepare(base, admin):
    """The store, session, credential, ticket and holder the operations are exercised with."""
    hours = [{"open": "00:00", "close": "23:59"}] * 7
    store = call(base, "POST", "/v1/stores", admin, {
        "store": {
            "name": "Contract Market", "address": "1 Schema Street, Milano",
            "location": {"latitude": 45.4642, "longitude": 9.19}, "capacity": 20, "openingHours": hours,
            "utcOffsetMinutes": 0, "averageVisitMinutes": 20, "slotMinutes": 15, "slotSize": 5,
        },
        "manager": {"username": "contract-manager", "password": "correct horse battery"},
    })["id"]
    session = call(base, "POST", "/v1/login", body={
        "username": "contract-manager", "password": "correct horse battery",
    })["token"]
    credential = call(base, "POST", f"/v1/stores/{store}/devices", session, {"device": "contract-kiosk"})["credential"]
    ticket = call(base, "POST", f"/v1/stores/{store}/tickets", headers={"Clup-Work": work(base, store)})
    # The settings are fuzzed on a store of their own: a capacity of 1 there leaves the others' lines alone.
    settings_store = call(base, "POST", "/v1/stores", admin, {
        "store": {
            "name": "Settings Market", "address": "2 Schema Street, Milano",
            "location": {"latitude": 45.4642, "longitude": 9.19}, "capacity": 20, "openingHours": hours,
            "utcOffsetMinutes": 0, "averageVisitMinutes": 20, "slotMinutes": 15, "slotSize": 5,
        },
        "manager": {"username": "settings-manager", "password": "correct horse battery"},
    })["id"]
    settings_session = call(base, "POST", "/v1/login", body={
        "username": "settings-manager", "password": "correct horse battery",
    })["token"]
    return {
        "store": store, "session": session, "credential": credential,
        "ticket": ticket["ticket"]["id"], "holder": ticket["holderToken"],
        "settings_store": settings_store, "settings_session": settings_session,
    }


def config(base, admin, data, max_examples):
    store_only = {"store": data["store"]}
    lines = [
        f'base-url = "{base}"',
        f"generation.max-examples = {max_examples}",
        "request-timeout = 10.0",
        "",
    ]

    addresses = iter(range(1, 255))

    def operation(regex, method=None, token=None, parameters=None, headers=None, cross_field=False,
                  small_body=False, large_body_refused=False):
        lines.append("[[operations]]")
        lines.append(f"include-path-regex = {json.dumps(regex)}")
        if method:
            lines.append(f'include-method = "{method}"')
        # Each operation as a client of its own (the server trusts this loopback proxy): schemathesis's
        # probes of a wrong token count against one operation's address, not against every operation's, so
        # that the server's wait for a guessing address (429, AttackRoundTwoTests) is not taken for a
        # token that went unchecked.
        all_headers = {"X-Forwarded-For": f"192.0.2.{next(addresses)}", **(headers or {})}
        if token:
            all_headers["Authorization"] = "Bearer " + token
        if all_headers:
            lines.append("headers = { " + ", ".join(f"{json.dumps(k)} = {json.dumps(v)}"
                                                    for k, v in all_headers.items()) + " }")
        if parameters:
            lines.append("parameters = { " + ", ".join(f"{json.dumps(k)} = {json.dumps(v)}"
                                                       for k, v in parameters.items()) + " }")
        if cross_field:
            lines.append("checks.positive_data_acceptance.expected-statuses = "
                         '["2XX", "3XX", "400", "401", "403", "404", "409", "429", "503"]')
        if large_body_refused:
            lines.append("checks.positive_data_acceptance.expected-statuses = "
                         '["2XX", "3XX", "400", "401", "403", "404", "409", "413", "429", "503"]')
            small_body = True
        if small_body:
            # A body over the operation's few KB is refused whole (413) before it is read as JSON.
            lines.append("checks.negative_data_rejection.expected-statuses = "
                         '["400", "401", "403", "404", "405", "406", "409", "413", "415", "422", "428", "429"]')
        lines.append("")

    operation(r"^/v1/stores$", "POST", admin, cross_field=True)
    operation(r"^/stores/\{store\}/book$", None, None, store_only, cross_field=True)  # the horizon
    # The console's forms without its session cookie and CSRF token: to the login page (303), or a page
    # saying why not (4xx) — never a change.
    operation(r"^/console", None, None, store_only, cross_field=True)
    operation(r"^/v1/stores/\{store\}/devices", None, data["session"], store_only)
    operation(r"^/v1/devices$", "GET", admin)  # every store's kiosks
    operation(r"^/v1/stores/\{store\}$", "PATCH", data["settings_session"], {"store": data["settings_store"]},
              cross_field=True)  # slotSize at most the capacity, a day closes after it opens
    # Staff's counts and pauses on the settings' store, which has no kiosk: one of sync protocol 1 (the
    # contract kiosk when it sends no protocol header) would have them refused (409, documented).
    for path in ("count", "let-in", "pause", "resume"):
        operation(rf"^/v1/stores/\{{store\}}/{path}$", "POST", data["settings_session"],
                  {"store": data["settings_store"]})
    operation(r"^/v1/stores/\{store\}/(report|export)$", "GET", data["session"], store_only,
              cross_field=True)  # up to 366 days back
    operation(r"^/v1/(devices/self/key|stores/\{store\}/keys)$", None, data["credential"], store_only)
    operation(r"^/v1/stores/\{store\}/events$", "POST", data["credential"], store_only)
    operation(r"^/v1/stores/\{store\}/events$", "GET", data["credential"], store_only)
    operation(r"^/v1/stores/\{store\}/tickets$", None, None, store_only)
    operation(r"^/v1/stores/\{store\}/slots$", None, None, store_only, cross_field=True)
    operation(r"^/v1/stores/\{store\}/bookings$", None, None, store_only, cross_field=True)
    # A push subscription's page must be the ticket's own signed page, its keys a browser's P-256 point.
    operation(r"^/v1/tickets/\{ticket\}/push$", "PUT", None, {"ticket": data["ticket"]},
              headers={"Clup-Holder": data["holder"]}, cross_field=True, small_body=True)
    # A journey's body is at most 4 KB, refused whole (413) beyond, whatever its fields.
    operation(r"^/v1/tickets/\{ticket\}/journey$", "PUT", None, {"ticket": data["ticket"]},
              headers={"Clup-Holder": data["holder"]}, large_body_refused=True)
    operation(r"^/v1/tickets/\{ticket\}", None, None, {"ticket": data["ticket"]},
              headers={"Clup-Holder": data["holder"]})
    return "\n".join(lines)


PAID = ("/v1/stores/{store}/tickets", "/v1/stores/{store}/bookings")

try:
    import schemathesis

    @schemathesis.hook
    def before_call(context, case, kwargs):
        """Long-polls are the sync tests' subject: here a valid wait is cut to 1 s so no read outlasts the
        request timeout (invalid ones — negative, over 60, not a number — go out as generated).

        A query value the HTTP client would leave out (null, an empty list or object) goes out as an empty value:
        a negative case that added such a parameter to GET /v1/stores's search (2026-12-07, seed
        238370861701427441025762515629513930286) went out as the valid search it was added to, was answered 200
        and counted as invalid data accepted. No query parameter of the contract is null, a list or an object."""
        if case.query:
            for name, value in list(case.query.items()):
                if value is None or value == [] or value == {}:
                    case.query[name] = ""
        if case.method.upper() == "GET" and case.operation.path == "/v1/stores/{store}/events" and case.query:
            wait = case.query.get("wait")
            if isinstance(wait, int) and not isinstance(wait, bool) and 1 < wait <= 60:
                case.query["wait"] = 1
        if case.method.upper() == "POST" and case.operation.path in PAID and case.path_parameters:
            proof = (case.headers or {}).get("Clup-Work")
            if proof is None or (isinstance(proof, str) and len(proof) <= 64):
                base, store = os.environ["CLUP_CONTRACT_BASE"], case.path_parameters.get("store")
                try:
                    case.headers = dict(case.headers or {}, **{"Clup-Work": work(base, store)})
                except Exception:  # an unknown or malformed store: the request goes out as generated
                    pass
except ImportError:  # only the schemathesis CLI loads this module for its hooks
    pass


def main():
    args = sys.argv[1:]
    if len(args) < 3:
        sys.exit(__doc__)
    base, admin, schema = args[0].rstrip("/"), args[1], args[2]
    max_examples = int(args[args.index("--max-examples") + 1]) if "--max-examples" in args else 50
    seed = args[args.index("--seed") + 1] if "--seed" in args else None
    data = prepare(base, admin)
    with tempfile.TemporaryDirectory() as directory:
        path = os.path.join(directory, "schemathesis.toml")
        with open(path, "w") as file:
            file.write(config(base, admin, data, max_examples))
        command = [
            os.path.join(os.path.dirname(sys.executable), "schemathesis"), "--config-file", path, "run", schema,
            "--checks", "all", "--report-dir", directory,
            # No stateful phase: the document has no links, and the phase's negative cases ignore the fixed
            # credentials and ids given above (it "removes" an Authorization header that the config puts back,
            # then reports the 200 as invalid data accepted).
            "--phases", "examples,coverage,fuzzing",
        ]
        if seed:
            command += ["--seed", seed]
        environment = dict(
            os.environ, NO_COLOR="1", PYTHONDONTWRITEBYTECODE="1", SCHEMATHESIS_HOOKS="api_contract", CLUP_CONTRACT_BASE=base,
            PYTHONPATH=os.path.dirname(os.path.abspath(__file__)),
        )
        result = subprocess.run(command, cwd=directory, env=environment)
        sys.exit(result.returncode)


if __name__ == "__main__":
    main()
