#!/usr/bin/env python3
"""The repository's own rules, checked by `make check` (docs/architecture.md, "The one-way rules").

- A module imports only what its layer may: KioskCore no C module, Glibc or module of ours; kioskd never
  CLupServer or the emulators; clup-server's storage never the API's types; and so on (RULES below).
- clup-server's folders keep their places: its routes, pages and console never name storage or the queues
  (they call the services); its services, queues and model know no HTTP (they throw a Refusal).
- Source files stay small: the median at most 80 lines, none over 400.
- Every link in README.md and docs/*.md resolves to a file (and, for `#anchor`, a heading) of the repository.

Prints each broken rule with the file and line and what to do, and exits 1 when there is one.
"""

import re
import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SOURCES = ROOT / "Sources"

# Our modules: every folder of Sources/.
OURS = {p.name for p in SOURCES.iterdir() if p.is_dir()}
C_MODULES = {m for m in OURS if m.startswith("C") and m[1:2].isupper()}

# module -> (allowed modules of ours, forbidden other modules); a module not listed may import anything.
RULES = {
    "KioskCore": (set(), {"Glibc", "Foundation", "FoundationNetworking", "SystemPackage", "Dispatch"} | C_MODULES),
    "SyncWire": ({"KioskCore"}, {"Glibc", "Foundation"} | C_MODULES),
    "QRSymbol": ({"KioskCore", "CQREncode"}, set()),
    "SystemCalls": (set(), set()),
    "ServiceSupport": ({"KioskCore", "SystemCalls", "CLinuxShims"}, set()),
    "Drivers": ({"KioskCore", "QRSymbol", "SystemCalls", "StrictTOML"} | C_MODULES, set()),
    "StationStore": ({"KioskCore", "ServiceSupport"}, set()),
    "KioskStation": ({"KioskCore", "StationStore", "Drivers", "SyncWire", "ServiceSupport", "QRSymbol", "StrictTOML",
                      "SystemCalls"} | C_MODULES, set()),
    "kioskd": ({"KioskStation", "StationStore", "Drivers", "KioskCore", "SyncWire", "ServiceSupport", "StrictTOML"},
               set()),
}

# Files under a folder that may not name the API's types (storage throws its own errors; routes map them to HTTP).
STORAGE = SOURCES / "CLupServer" / "Storage"
API_TYPES = re.compile(r"\b(APIError|ErrorEnvelope|HTTPError|HTTPResponse|Request|Response|ServerContext)\b")
FORBIDDEN_IN_STORAGE = {"Hummingbird", "HTTPTypes", "NIOHTTP1"}

# clup-server's edges (HTTP) and middle: requests flow routes → services → storage and never back.
SERVER = SOURCES / "CLupServer"
EDGES = {"Routes", "Pages", "Console"}
MIDDLE = {"Services", "Queues", "Model"}
# What an edge may not name: storage, the queues (a snapshot of one store, StoreQueues.Live, is a value to
# show), or a service's queues reached through it.
NAMES_STORAGE = re.compile(
    r"\b(ServerStorage|SQLiteStorage|PostgresStorage|IssueOrder)\b|\bStoreQueues\b(?!\.Live\b)|\.logs\b"
    r"|\bdatabase\b"
)
NAMES_HTTP = re.compile(r"\b(APIError|ErrorEnvelope|HTTPError|HTTPResponse|Request|Response|ServerContext)\b")
FORBIDDEN_IN_MIDDLE = {"Hummingbird", "HTTPTypes", "NIOHTTP1"}
# The server's events are made by the queues alone (StoreQueues+Writes/Profile/Duties): a new event, or the rule
# that issues a ticket, anywhere else would be a second writer.
MAKES_EVENTS = re.compile(r"\b(StoreEvent\.new|ServerIssue)\(")
EVENT_MAKER = "Queues"
STRING = re.compile(r'"(?:[^"\\\n]|\\.)*"')

IMPORT = re.compile(r"^\s*(?:@\w+(?:\([^)]*\))?\s+)*import\s+(?:(?:struct|class|enum|protocol|func|var|let|typealias)\s+)?(\w+)")

MEDIAN_LINES = 80
MOST_LINES = 400

# Writes to a station's log and replica that bypass StationLog: for tests and benchmarks only.
SEEDING = re.compile(r"@_spi\(Seeding\)")

problems: list[str] = []


def check_imports(sources: Path = SOURCES) -> None:
    for module_dir in sorted(p for p in sources.iterdir() if p.is_dir()):
        module = module_dir.name
        for path in sorted(module_dir.rglob("*.swift")):
            rel = path.relative_to(ROOT) if ROOT in path.parents else path
            in_storage = STORAGE in path.parents
            for number, line in enumerate(path.read_text().splitlines(), 1):
                match = IMPORT.match(line)
                if match:
                    imported = match.group(1)
                    if SEEDING.search(line):
                        problems.append(
                            f"{rel}:{number}: imports {imported} for seeding: only tests and benchmarks seed a "
                            "station's log — the station writes through StationLog (Sources/StationStore)"
                        )
                    if module in RULES:
                        allowed, forbidden = RULES[module]
                        if imported in forbidden or (imported in OURS and imported != module and imported not in allowed):
                            problems.append(
                                f"{rel}:{number}: {module} may not import {imported} "
                                "(docs/architecture.md, the one-way rules): move the code to a module that may"
                            )
                    if in_storage and imported in FORBIDDEN_IN_STORAGE:
                        problems.append(f"{rel}:{number}: storage imports {imported}: storage knows no HTTP")
                    continue
                code = line.split("//", 1)[0]
                if in_storage and API_TYPES.search(code):
                    problems.append(
                        f"{rel}:{number}: storage names an API type ({API_TYPES.search(code).group(1)}): "
                        "throw a StorageError and let the routes map it to HTTP"
                    )


def check_folders(root: Path = SERVER) -> None:
    """The server's folder rules (docs/architecture.md, "clup-server's layers")."""
    for path in sorted(root.rglob("*.swift")):
        folder = path.relative_to(root).parts[0]
        rel = path.relative_to(ROOT) if ROOT in path.parents else path
        for number, line in enumerate(path.read_text().splitlines(), 1):
            match = IMPORT.match(line)
            if match:
                if folder in MIDDLE and match.group(1) in FORBIDDEN_IN_MIDDLE:
                    problems.append(
                        f"{rel}:{number}: {folder} imports {match.group(1)}: the services, queues and model know no "
                        "HTTP — throw a Refusal and make the response in Routes/"
                    )
                continue
            code = STRING.sub('""', line.split("//", 1)[0])
            if folder != EVENT_MAKER and (found := MAKES_EVENTS.search(code)):
                problems.append(
                    f"{rel}:{number}: {folder} makes a server event ({found.group(1)}): the queues alone write the "
                    "store's log (Queues/StoreQueues+Writes.swift) — call them through a service"
                )
            if folder not in EDGES | MIDDLE:
                continue
            if folder in EDGES and (found := NAMES_STORAGE.search(code)):
                problems.append(
                    f"{rel}:{number}: {folder} names {found.group(0).lstrip('.')}: routes, pages and the console "
                    "call the services (Services/), which alone call the queues and storage"
                )
            if folder in MIDDLE and (found := NAMES_HTTP.search(code)):
                problems.append(
                    f"{rel}:{number}: {folder} names {found.group(1)}: the services, queues and model know no HTTP "
                    "— throw a Refusal (Model/Refusal.swift); the routes answer it"
                )


def check_sizes() -> None:
    sizes = {}
    for path in SOURCES.rglob("*.swift"):
        sizes[path.relative_to(ROOT)] = len(path.read_text().splitlines())
    median = statistics.median(sizes.values())
    if median > MEDIAN_LINES:
        problems.append(f"Sources: the median file has {median:g} lines (at most {MEDIAN_LINES}): split big files")
    for path, lines in sorted(sizes.items()):
        if lines > MOST_LINES:
            problems.append(f"{path}: {lines} lines (at most {MOST_LINES}): split it by what its parts do")


def anchors(path: Path) -> set[str]:
    """GitHub's anchors of a Markdown file's headings."""
    found = set()
    for line in path.read_text().splitlines():
        heading = re.match(r"^#{1,6}\s+(.*)", line)
        if heading:
            text = re.sub(r"[`*_]", "", heading.group(1)).strip().lower()
            found.add(re.sub(r"[^\w\- ]", "", text).replace(" ", "-"))
    return found


def check_links() -> None:
    link = re.compile(r"\]\(([^)\s]+)\)")
    for doc in [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]:
        for number, line in enumerate(doc.read_text().splitlines(), 1):
            for target in link.findall(line):
                rel = doc.relative_to(ROOT)
                if re.match(r"^[a-z]+:", target):
                    problems.append(f"{rel}:{number}: {target} points outside the repository: bring it in or drop it")
                    continue
                file_part, _, anchor = target.partition("#")
                resolved = (doc.parent / file_part).resolve() if file_part else doc
                if ROOT not in resolved.parents and resolved != ROOT:
                    problems.append(f"{rel}:{number}: {target} leaves the repository")
                elif not resolved.exists():
                    problems.append(f"{rel}:{number}: {target} does not exist")
                elif anchor and resolved.suffix == ".md" and anchor not in anchors(resolved):
                    problems.append(f"{rel}:{number}: {target}: no heading makes #{anchor}")


def main() -> int:
    if len(sys.argv) == 3 and sys.argv[1] in ("--server-folders", "--imports"):
        # For the rules' own tests: the folder rules over another copy of Sources/CLupServer, the import rules
        # over another copy of Sources/.
        if sys.argv[1] == "--imports":
            check_imports(Path(sys.argv[2]).resolve())
        else:
            check_folders(Path(sys.argv[2]).resolve())
        for problem in problems:
            print(problem)
        return 1 if problems else 0
    check_imports()
    check_folders()
    check_sizes()
    check_links()
    for problem in problems:
        print(problem)
    if problems:
        print(f"check-rules: {len(problems)} problem(s)")
        return 1
    print("check-rules: imports one way, files small, links inside the repository")
    return 0


if __name__ == "__main__":
    sys.exit(main())
