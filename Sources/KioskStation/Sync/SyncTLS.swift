import Foundation
import NIOSSL

/// How a kiosk trusts clup-server: HTTPS checked against the system's CA store, or against the CA
/// certificates of `[sync] ca_file` alone (a chain's private CA, pinned); plain HTTP only to this machine
/// or where the operator said `insecure = true`.
extension KioskConfig.Sync {
    struct CAFileError: Error, CustomStringConvertible {
        let description: String
    }

    /// The CA certificates in a PEM file; throws with what to do when there are none.
    static func trustRoots(_ path: String) throws(CAFileError) -> [NIOSSLCertificate] {
        let certificates: [NIOSSLCertificate]
        do {
            certificates = try NIOSSLCertificate.fromPEMFile(path)
        } catch {
            throw CAFileError(
                description: "cannot read CA certificates from \(path) (\(error)) — give the PEM file of the CA "
                    + "that signed clup-server's certificate"
            )
        }
        guard !certificates.isEmpty else {
            throw CAFileError(description: "\(path) holds no PEM certificate — give the CA's certificate")
        }
        return certificates
    }

    /// Whether `url` names this machine (localhost, 127.0.0.0/8, ::1): plain HTTP cannot be overheard there.
    static func isLoopback(_ url: String) -> Bool {
        guard let host = URL(string: url)?.host else { return false }
        return KioskConfig.isLoopback(host: host)
    }

    /// The client side of TLS for the sync client: TLS 1.2 or later, full verification (chain and host
    /// name), against `ca_file` when set.
    func tlsConfiguration() throws(CAFileError) -> TLSConfiguration {
        var configuration = TLSConfiguration.makeClientConfiguration()
        configuration.minimumTLSVersion = .tlsv12
        // Closing waits this long at most for the server's close_notify, so a stop stays short.
        configuration.shutdownTimeout = .seconds(1)
        if let caFile {
            configuration.trustRoots = .certificates(try Self.trustRoots(caFile))
        }
        return configuration
    }
}
