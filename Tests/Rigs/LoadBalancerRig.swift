import Foundation
import Glibc

/// Debian's nginx in front of clup-server replicas, on loopback, configured as docs/deployment.md says
/// says (the same blocks): TLS ends here (a certificate from the test's CA), X-Forwarded-For names the client,
/// long-polls and server-sent events are not buffered, and a request whose replica died or refused the
/// connection goes to another replica. A second, plain-HTTP port serves the tests' own socket clients.
final class LoadBalancerRig: @unchecked Sendable {
    let directory: String
    let tlsPort: Int
    let plainPort: Int
    private let process: Process

    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    static var available: Bool { HIL.strict || FileManager.default.isExecutableFile(atPath: "/usr/sbin/nginx") }

    init(upstreams: [Int], certificate: (certificate: String, key: String), directory: String) throws {
        self.directory = directory
        tlsPort = try HIL.freePort()
        plainPort = try HIL.freePort()
        for temporary in ["body", "proxy", "fastcgi", "uwsgi", "scgi"] {
            try FileManager.default.createDirectory(
                atPath: "\(directory)/\(temporary)",
                withIntermediateDirectories: true
            )
        }
        let servers = upstreams.map { "server 127.0.0.1:\($0) max_fails=1 fail_timeout=2s;" }.joined(separator: "\n")
        let config = """
            \(HIL.isRoot ? "user root;" : "")
            daemon off;
            worker_processes 1;
            pid \(directory)/nginx.pid;
            error_log \(directory)/error.log warn;
            events { worker_connections 2048; }
            http {
                access_log off;
                client_body_temp_path \(directory)/body;
                proxy_temp_path \(directory)/proxy;
                fastcgi_temp_path \(directory)/fastcgi;
                uwsgi_temp_path \(directory)/uwsgi;
                scgi_temp_path \(directory)/scgi;
            \(Self.deployment(upstreams: servers))
                server {
                    listen 127.0.0.1:\(tlsPort) ssl;
                    ssl_certificate \(certificate.certificate);
                    ssl_certificate_key \(certificate.key);
                    include \(directory)/clup-location.conf;
                }
                server {
                    listen 127.0.0.1:\(plainPort);
                    include \(directory)/clup-location.conf;
                }
            }
            """
        try config.write(toFile: "\(directory)/nginx.conf", atomically: true, encoding: .utf8)
        try Self.location.write(toFile: "\(directory)/clup-location.conf", atomically: true, encoding: .utf8)
        process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/sbin/nginx")
        process.arguments = ["-c", "\(directory)/nginx.conf", "-p", directory]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        let deadline = ContinuousClock.now + .seconds(10)
        while ContinuousClock.now < deadline {
            if (try? HIL.run("curl", ["-s", "-o", "/dev/null", "http://127.0.0.1:\(plainPort)/healthz"]))?.status == 0 {
                return
            }
            guard process.isRunning else { break }
            usleep(50_000)
        }
        let log = (try? String(contentsOfFile: "\(directory)/error.log", encoding: .utf8)) ?? ""
        stop()
        throw Failure(description: "nginx did not start: \(log.suffix(2000))")
    }

    /// The upstream block: replicas that failed once are left alone for 2 s.
    static func deployment(upstreams: String) -> String {
        """
            upstream clup_server {
                \(upstreams)
                keepalive 32;
            }
        """
    }

    /// What docs/deployment.md has in its `location /`.
    static let location = """
        location / {
            proxy_pass http://clup_server;
            proxy_http_version 1.1;
            proxy_set_header Connection "";
            proxy_set_header Host $host;
            proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;
            proxy_set_header X-Forwarded-Proto $scheme;
            # Long-polls (up to 60 s) and server-sent events pass through as they come.
            proxy_buffering off;
            proxy_read_timeout 90s;
            # A replica that refuses the connection (stopped, restarting): the next one. A POST already sent to a
            # replica that then died is not sent again (it may have been done): the client retries — kioskd's
            # pushes are idempotent by event id, and an app sees its error.
            proxy_connect_timeout 1s;
            proxy_next_upstream error timeout http_502 http_503;
            proxy_next_upstream_tries 3;
        }
        """

    var tlsURL: String { "https://localhost:\(tlsPort)" }
    var plainURL: String { "http://127.0.0.1:\(plainPort)" }

    func stop() {
        if process.isRunning {
            kill(process.processIdentifier, SIGQUIT)
            process.waitUntilExit()
        }
    }
}
