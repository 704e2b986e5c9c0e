import Glibc

/// Whether a TCP port can still be listened on, asked before a program prints that it runs: a port another
/// program holds is named with the setting that moves it, instead of a bare "Address already in use" after the
/// banner. The probe binds and closes at once; the server's own bind still decides (the port may be taken
/// between the two, and is then refused the usual way).
public enum PortProbe {
    /// A port that cannot be listened on, and what to do (its description).
    public struct Refused: Error, CustomStringConvertible {
        public let description: String
    }

    /// Returns when `port` on `host` can be bound (or is 0: any free port); else throws what to do, naming
    /// `setting`.
    public static func check(host: String, port: Int, setting: String) throws(Refused) {
        if let problem = problem(host: host, port: port, setting: setting) { throw Refused(description: problem) }
    }

    static func problem(host: String, port: Int, setting: String) -> String? {
        guard port != 0 else { return nil }
        var hints = addrinfo()
        hints.ai_flags = AI_PASSIVE
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var found: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, "\(port)", &hints, &found) == 0, let address = found else { return nil }
        defer { freeaddrinfo(found) }
        let fd = socket(address.pointee.ai_family, address.pointee.ai_socktype, address.pointee.ai_protocol)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var one: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        guard bind(fd, address.pointee.ai_addr, address.pointee.ai_addrlen) != 0 else { return nil }
        switch errno {
        case EADDRINUSE:
            return "port \(port) on \(host) is taken by another program (`ss -ltnp 'sport = :\(port)'` names it): "
                + "stop it, or choose another port with \(setting)"
        case EACCES:
            return "port \(port) is below 1024 and needs privileges: choose a port from 1024 up with \(setting)"
        case EADDRNOTAVAIL:
            return "\(host) is not an address of this machine: choose one of its addresses with \(setting)"
        default:
            return nil
        }
    }
}
