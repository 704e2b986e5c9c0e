import Logging
import ServiceLifecycle
import UnixSignals

/// Reads the TLS certificate and key again on SIGHUP (`systemctl reload clup-server`, a certbot deploy hook):
/// the next handshakes present the new pair, open connections keep theirs. A pair that cannot be used is
/// logged and the previous one stays.
struct CertificateReload: Service {
    let certificate: ServerCertificate
    let logger: Logger

    func run() async throws {
        let hangups = await UnixSignalsSequence(trapping: .sighup)
        for await _ in hangups.cancelOnGracefulShutdown() {
            do {
                try certificate.reload()
                logger.notice("TLS certificate reloaded", metadata: ["certificate": "\(certificate.summary)"])
            } catch {
                logger.error(
                    "TLS certificate not reloaded, still presenting the previous one",
                    metadata: ["certificate": "\(certificate.summary)", "error": "\(error)"]
                )
            }
        }
    }
}
