import Foundation
import NIOSSL
import Synchronization

/// The certificate clup-server presents when it serves HTTPS itself: a PEM certificate chain (the server's
/// certificate first, then its intermediates) and its PEM private key, read from two files at start and read
/// again by ``reload()`` (on SIGHUP, after certbot or an operator renews them) without dropping a connection.
///
/// Every TLS handshake asks for the current pair (NIOSSL's context callback), so a reload applies to the next
/// handshake; connections already open keep theirs. A reload that fails (a file half written, a key that does
/// not match) keeps the pair in use and says why.
public final class ServerCertificate: Sendable {
    public struct Files: Sendable, Equatable {
        public var certificateChain: String
        public var privateKey: String

        public init(certificateChain: String, privateKey: String) {
            self.certificateChain = certificateChain
            self.privateKey = privateKey
        }
    }

    public let files: Files
    private let current: Mutex<Pair>

    private struct Pair: Sendable {
        var chain: [NIOSSLCertificate]
        var key: NIOSSLPrivateKey
        var summary: String
    }

    public init(files: Files) throws(ServerApp.ConfigurationError) {
        self.files = files
        current = Mutex(try Self.load(files))
    }

    /// Which certificate and until when, e.g. `serial 4F1A…, valid until 2027-02-21` (the serial as
    /// `openssl x509 -noout -serial` prints it).
    public var summary: String { current.withLock { $0.summary } }

    /// Reads both files again and presents them from the next handshake on; throws (and keeps presenting the
    /// previous pair) when they cannot be used.
    public func reload() throws(ServerApp.ConfigurationError) {
        let pair = try Self.load(files)
        current.withLock { $0 = pair }
    }

    /// The server side of TLS: TLS 1.2 or later, the current pair on every handshake, a short close.
    var tlsConfiguration: TLSConfiguration {
        let pair = current.withLock { $0 }
        var configuration = TLSConfiguration.makeServerConfiguration(
            certificateChain: pair.chain.map { .certificate($0) },
            privateKey: .privateKey(pair.key)
        )
        configuration.minimumTLSVersion = .tlsv12
        // A client that never answers our close_notify (an idle pooled connection does not read) holds a
        // connection, and so a graceful stop, this long at most: within the 2 s a stop may take.
        configuration.shutdownTimeout = .seconds(1)
        configuration.sslContextCallback = { [self] _, promise in
            let pair = current.withLock { $0 }
            var change = NIOSSLContextConfigurationOverride()
            change.certificateChain = pair.chain.map { .certificate($0) }
            change.privateKey = .privateKey(pair.key)
            promise.succeed(change)
        }
        return configuration
    }

    private static func load(_ files: Files) throws(ServerApp.ConfigurationError) -> Pair {
        let chain: [NIOSSLCertificate]
        do {
            chain = try NIOSSLCertificate.fromPEMFile(files.certificateChain)
        } catch {
            throw ServerApp.ConfigurationError(
                "TLS certificate \(files.certificateChain): cannot read a PEM certificate chain (\(error)) — "
                    + "give the server's certificate first, then its intermediates, as PEM"
            )
        }
        guard let leaf = chain.first else {
            throw ServerApp.ConfigurationError(
                "TLS certificate \(files.certificateChain): no certificate in the file — give a PEM certificate chain"
            )
        }
        let key: NIOSSLPrivateKey
        do {
            key = try NIOSSLPrivateKey(file: files.privateKey, format: .pem)
        } catch {
            throw ServerApp.ConfigurationError(
                "TLS private key \(files.privateKey): cannot read a PEM private key (\(error)) — "
                    + "it must be unencrypted and readable by clup-server only"
            )
        }
        // A context made from the pair checks that the key is the certificate's.
        do {
            _ = try NIOSSLContext(
                configuration: .makeServerConfiguration(
                    certificateChain: chain.map { .certificate($0) },
                    privateKey: .privateKey(key)
                )
            )
        } catch {
            throw ServerApp.ConfigurationError(
                "TLS: the private key \(files.privateKey) does not belong to the certificate "
                    + "\(files.certificateChain) (\(error)) — install the key the certificate was issued for"
            )
        }
        let expiry = Date(timeIntervalSince1970: TimeInterval(leaf.notValidAfter))
        return Pair(
            chain: chain,
            key: key,
            summary: "serial \(serial(of: leaf)), valid until \(expiry.formatted(.iso8601.year().month().day()))"
        )
    }

    /// The serial number in upper-case hex, as `openssl x509 -serial` prints it.
    static func serial(of certificate: NIOSSLCertificate) -> String {
        certificate.serialNumber.map { String($0, radix: 16, uppercase: true).leftPadded(to: 2) }.joined()
    }
}

extension String {
    fileprivate func leftPadded(to width: Int) -> String {
        String(repeating: "0", count: max(0, width - count)) + self
    }
}
