import Foundation
import Testing

@testable import Rigs

/// kioskd as an installer first meets it: `--version`; the shipped configuration, whose store id is the all-zeros
/// placeholder, refused with exit 78 (the unit does not restart it in a loop) and a sentence saying what to set;
/// a configuration file that is not there said in a sentence, not an error dump.
@Suite struct KioskdCommandLineTests {
    static var built: Bool { FileManager.default.isExecutableFile(atPath: HIL.kioskd) }

    @Test(.enabled(if: built, "kioskd is not built next to the tests"))
    func bothProgramsTellTheirVersion() throws {
        for program in [HIL.kioskd, HIL.clupServer] {
            let run = try HIL.run(program, ["--version"])
            #expect(run.status == 0, "\(program): \(run.error)")
            // Run from the build folder, not the package's /usr/bin: the source's series.
            #expect(run.output.hasPrefix("0.") && run.output.contains("built from source"), "\(run.output)")
        }
    }

    @Test(.enabled(if: built, "kioskd is not built next to the tests"))
    func theShippedPlaceholderStoreIsRefused() throws {
        let run = try HIL.run(HIL.kioskd, ["run", "--config", "\(HIL.packageRoot)/config/kioskd.toml"])
        #expect(run.status == 78)
        #expect(run.error.contains("[store] id is the shipped placeholder (all zeros)"), "\(run.error)")
    }

    @Test(.enabled(if: built, "kioskd is not built next to the tests"))
    func aMissingConfigurationIsASentence() throws {
        let run = try HIL.run(HIL.kioskd, ["run", "--config", "/nonexistent/kioskd.toml"])
        #expect(run.status == 78)
        #expect(run.error.contains("there is no configuration file here"), "\(run.error)")
        #expect(!run.error.contains("NSCocoaErrorDomain") && !run.error.contains("Error Domain"), "\(run.error)")
    }
}
