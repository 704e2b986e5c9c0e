import Foundation
import Testing

@testable import Rigs

/// The Debian package on a clean Debian 12 (a debootstrap chroot with no Swift): it installs with its
/// dependencies, makes its users, runs kioskd from the unit's command line as the kioskd user against the
/// packaged emulator, keeps a changed configuration, and removes and purges cleanly
/// (Tests/Packaging/install-in-chroot.sh). `make test` builds the package and names it in CLUP_TEST_DEB.
@Suite struct DebianPackageTests {
    static var deb: String? { ProcessInfo.processInfo.environment["CLUP_TEST_DEB"] }

    static var runnable: Bool {
        HIL.strict || (HIL.isRoot && deb != nil && HIL.which("debootstrap") != nil)
    }

    @Test(.enabled(if: runnable, "needs root, debootstrap and CLUP_TEST_DEB=<the .deb> (make test does all three)"))
    func thePackageInstallsAndRunsOnACleanDebian() throws {
        let deb = try #require(Self.deb, "CLUP_TEST_DEB is not set: run make test")
        try #require(HIL.isRoot, "a chroot needs root")
        let result = try HIL.run(
            "\(HIL.packageRoot)/Tests/Packaging/install-in-chroot.sh",
            [deb, "\(HIL.packageRoot)/.build-chroot"]
        )
        #expect(result.status == 0, "\(result.output)\n\(result.error)")
        for check in [
            "ok installed with its dependencies on a clean Debian 12",
            "ok system users",
            "ok the binaries run without a Swift toolchain",
            "ok kioskd runs as the kioskd user from the unit's command line: ticket A001 printed and waiting",
            "ok kioskd with a TCP printer loads neither libcups nor libcurl",
            "ok SIGTERM stops kioskd with exit 0",
            "ok a changed configuration is kept on reinstall",
            "ok remove keeps the configuration, purge removes it and the state",
        ] {
            #expect(result.output.contains(check), "missing '\(check)':\n\(result.output)\n\(result.error)")
        }
    }
}
