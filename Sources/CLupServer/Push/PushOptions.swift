import StrictTOML

/// Web Push's settings (`[push]` in the configuration file): whether the server offers it, the push services a
/// subscription may name, and how a push service's operator reaches this server's (the VAPID `sub`).
public struct PushOptions: Sendable {
    public var enabled = true
    /// Host names (`*.example.com` for any name under it); the browsers' services by default.
    public var services = PushEndpoints.browsers
    /// A `mailto:` or `https:` URL; nil: the status URL's origin.
    public var subject: String?
    /// Tests only, never from the configuration file: a push service at `https://127.0.0.1:<port>`, with a
    /// certificate of the CA in this PEM file.
    public var testLoopbackCA: String?

    public init() {}

    mutating func read(_ table: StrictTable) throws(TOMLFileError) {
        enabled = try table.bool("enabled") ?? enabled
        if let hosts = try table.strings("services") {
            for host in hosts {
                let name = host.hasPrefix("*.") ? String(host.dropFirst(2)) : host
                guard PushEndpoints.isName(name.lowercased()) else {
                    throw table.error("services", "'\(host)' is not a host name or *.domain, e.g. fcm.googleapis.com")
                }
            }
            services = hosts
        }
        if let subject = try table.string("subject") {
            guard subject.hasPrefix("mailto:") || subject.hasPrefix("https://"), subject.utf8.count <= 200 else {
                throw table.error("subject", "a mailto: or https: URL, e.g. \"mailto:ops@example.com\"")
            }
            self.subject = subject
        }
        try table.rejectUnknownKeys()
    }
}
