import Foundation

/// What `--database` names: a file path (SQLite, one process) or a `postgres://` / `postgresql://` URL
/// (PostgreSQL, any number of replicas). A URL's password may be left out and given in `PGPASSWORD` instead
/// (a command line is visible to every user of the machine).
public enum DatabaseLocation: Sendable, Equatable, CustomStringConvertible {
    case sqlite(path: String)
    case postgres(PostgresAddress)

    /// Where a PostgreSQL database is and how to log in.
    public struct PostgresAddress: Sendable, Equatable {
        public var host: String
        public var port: Int
        public var user: String
        public var password: String?
        public var database: String
        /// `sslmode`: disable, prefer (the default, as libpq's) or require.
        public var tls: TLSMode

        public enum TLSMode: String, Sendable {
            case disable, prefer, require
        }
    }

    public struct Invalid: Error, Sendable, CustomStringConvertible {
        public let description: String
    }

    public init(_ text: String, environment: [String: String] = ProcessInfo.processInfo.environment) throws(Invalid) {
        guard text.hasPrefix("postgres://") || text.hasPrefix("postgresql://") else {
            guard !text.isEmpty, !text.contains("://") else {
                throw Invalid(
                    description: "--database '\(text)': a file path (SQLite) or postgres://USER@HOST:PORT/DATABASE"
                )
            }
            self = .sqlite(path: text)
            return
        }
        let example = "postgres://USER@HOST:PORT/DATABASE (the password in PGPASSWORD)"
        guard let url = URLComponents(string: text), let host = url.host, !host.isEmpty else {
            throw Invalid(description: "--database: cannot read the PostgreSQL URL — write it as \(example)")
        }
        let database = String(url.path.drop { $0 == "/" })
        guard let user = url.user, !user.isEmpty, !database.isEmpty, !database.contains("/") else {
            throw Invalid(description: "--database: the URL needs a user and a database name — \(example)")
        }
        let port = url.port ?? 5432
        guard (1...65535).contains(port) else { throw Invalid(description: "--database: port \(port) is not 1–65535") }
        let mode = url.queryItems?.first { $0.name == "sslmode" }?.value ?? "prefer"
        guard let tls = PostgresAddress.TLSMode(rawValue: mode) else {
            throw Invalid(description: "--database: sslmode '\(mode)' — use disable, prefer or require")
        }
        self = .postgres(
            PostgresAddress(
                host: host,
                port: port,
                user: user.removingPercentEncoding ?? user,
                password: url.password.map { $0.removingPercentEncoding ?? $0 } ?? environment["PGPASSWORD"],
                database: database,
                tls: tls
            )
        )
    }

    /// For logs and errors: never the password.
    public var description: String {
        switch self {
        case .sqlite(let path): path
        case .postgres(let address): "postgres://\(address.user)@\(address.host):\(address.port)/\(address.database)"
        }
    }
}
