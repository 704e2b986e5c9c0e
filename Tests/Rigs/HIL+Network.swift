import Foundation
import Glibc

extension HIL {
    /// This machine's first IPv4 address that is not loopback (nil: it has none).
    static let lanAddress: String? = {
        var list: UnsafeMutablePointer<ifaddrs>?
        guard getifaddrs(&list) == 0 else { return nil }
        defer { freeifaddrs(list) }
        var entry = list
        while let current = entry {
            defer { entry = current.pointee.ifa_next }
            guard let address = current.pointee.ifa_addr, address.pointee.sa_family == sa_family_t(AF_INET) else {
                continue
            }
            var name = [CChar](repeating: 0, count: Int(NI_MAXHOST))
            getnameinfo(
                address,
                socklen_t(MemoryLayout<sockaddr_in>.size),
                &name,
                socklen_t(name.count),
                nil,
                0,
                NI_NUMERICHOST
            )
            let text = String(decoding: name.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            if !text.hasPrefix("127.") { return text }
        }
        return nil
    }()
}
