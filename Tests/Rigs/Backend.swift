import Testing

/// clup-server's two storage backends: the suites that promise the same behaviour of both run once per backend
/// (the API and sync suites, the storage's promises). PostgreSQL is a private cluster of Debian's server per
/// server rig; where it is not installed (outside `make test`), only SQLite runs.
enum Backend: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case sqlite
    case postgresql

    static var available: [Backend] { PostgresRig.available ? allCases : [.sqlite] }

    var testDescription: String { rawValue }
}
