import Dispatch
import Drivers
import Foundation
import Testing

/// The reconnect loops' wait for a device node (inotify on a real folder).
@Suite final class DeviceNodeWatchTests {
    let folder: String

    init() throws {
        folder = NSTemporaryDirectory() + "clup-node-watch-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(atPath: folder) }

    /// Makes `path` (a file, or a folder when it ends in "/") a little after the wait has begun.
    private func make(_ path: String, afterMilliseconds delay: Int = 200) {
        DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(delay)) {
            if path.hasSuffix("/") {
                try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: false)
            } else {
                _ = FileManager.default.createFile(atPath: path, contents: nil)
            }
        }
    }

    @Test func theNodeAppearingEndsTheWait() {
        let path = "\(folder)/scanner"
        make(path)
        #expect(DeviceNodeWatch(path: path).waitForArrival(timeout: .seconds(20), shouldStop: { false }))
        #expect(FileManager.default.fileExists(atPath: path))
    }

    @Test func otherNodesInTheFolderDoNotEndIt() {
        make("\(folder)/printer")
        #expect(!DeviceNodeWatch(path: "\(folder)/scanner").waitForArrival(timeout: .seconds(1), shouldStop: { false }))
        #expect(FileManager.default.fileExists(atPath: "\(folder)/printer"))
    }

    /// udev removes /dev/clup with its last link: the folder above is watched until it comes back.
    @Test func aMissingFolderIsWaitedForFromAbove() {
        let path = "\(folder)/clup/scanner"
        let watch = DeviceNodeWatch(path: path)
        make("\(folder)/clup/")
        #expect(watch.waitForArrival(timeout: .seconds(20), shouldStop: { false }))
        make(path)
        #expect(watch.waitForArrival(timeout: .seconds(20), shouldStop: { false }))
        #expect(FileManager.default.fileExists(atPath: path))
    }

    @Test func aNodeAlreadyThereNeedsNoWait() {
        let path = "\(folder)/scanner"
        _ = FileManager.default.createFile(atPath: path, contents: nil)
        #expect(DeviceNodeWatch(path: path).waitForArrival(timeout: .seconds(20), shouldStop: { true }))
    }

    @Test func stoppingEndsTheWait() {
        let clock = ContinuousClock()
        let started = clock.now
        #expect(!DeviceNodeWatch(path: "\(folder)/scanner").waitForArrival(timeout: .seconds(20), shouldStop: { true }))
        #expect(clock.now - started < .seconds(10))
    }
}
