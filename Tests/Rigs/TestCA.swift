import Foundation

/// A private certificate authority made by `openssl` for one test: its own key and self-signed certificate,
/// and server certificates it issues for `localhost` and 127.0.0.1 (what a chain's private CA does for its
/// servers).
struct TestCA {
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// The CA's certificate (PEM): what a kiosk's `[sync] ca_file` names.
    let certificate: String
    let key: String
    let directory: String

    /// A new CA named `name` in `directory`.
    init(_ name: String, in directory: String) throws {
        self.directory = directory
        certificate = "\(directory)/\(name)-ca.pem"
        key = "\(directory)/\(name)-ca.key"
        try Self.openssl([
            "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
            "-keyout", key, "-out", certificate, "-days", "2", "-subj", "/CN=CLup test CA \(name)",
        ])
    }

    /// A server certificate and key for localhost and 127.0.0.1, signed by this CA with `serial`
    /// (hex, as `openssl x509 -serial` prints it); the paths of the certificate and the key.
    func issue(_ name: String, serial: String) throws -> (certificate: String, key: String) {
        let serverKey = "\(directory)/\(name).key"
        let request = "\(directory)/\(name).csr"
        let serverCertificate = "\(directory)/\(name).pem"
        let extensions = "\(directory)/\(name).ext"
        try "subjectAltName = DNS:localhost, IP:127.0.0.1\nextendedKeyUsage = serverAuth\n"
            .write(toFile: extensions, atomically: true, encoding: .utf8)
        try Self.openssl([
            "req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
            "-keyout", serverKey, "-out", request, "-subj", "/CN=localhost",
        ])
        try Self.openssl([
            "x509", "-req", "-in", request, "-CA", certificate, "-CAkey", key, "-set_serial", "0x\(serial)",
            "-days", "1", "-extfile", extensions, "-out", serverCertificate,
        ])
        return (serverCertificate, serverKey)
    }

    /// The serial of the certificate a TLS server at 127.0.0.1:`port` presents (`openssl s_client`, an
    /// independent client), e.g. `1A2B`; nil when no handshake happens.
    static func presentedSerial(port: Int) throws -> String? {
        let hello = try HIL.run(
            "/bin/sh",
            [
                "-c",
                "openssl s_client -connect 127.0.0.1:\(port) -servername localhost </dev/null 2>/dev/null "
                    + "| openssl x509 -noout -serial",
            ]
        )
        let line = hello.output.trimmingCharacters(in: .whitespacesAndNewlines)
        return line.hasPrefix("serial=") ? String(line.dropFirst("serial=".count)) : nil
    }

    private static func openssl(_ arguments: [String]) throws {
        let result = try HIL.run("openssl", arguments)
        guard result.status == 0 else {
            throw Failure(description: "openssl \(arguments.prefix(2).joined(separator: " ")): \(result.error)")
        }
    }
}
