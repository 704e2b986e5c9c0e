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

    /// Makes `path` (a file, or a folder when it ends in "/") a little after the wait has begun, on a thread of its
    /// own: the dispatch pool's threads may all be busy in a parallel test run (a pool-scheduled maker came after
    /// a 1 s wait had ended); the semaphore says when it is made.
    @discardableResult
    private func make(_ path: String, afterMilliseconds delay: Int = 200) -> DispatchSemaphore {
        let made = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            Thread.sleep(forTimeInterval: Double(delay) / 1000)
            if path.hasSuffix("/") {
                try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: false)
            } else {
                _ = FileManager.default.createFile(atPath: path, contents: nil)
            }
            made.signal()
        }
        return made
    }

    @Test func theNodeAppearingEndsTheWait() {
        let path = "\(folder)/scanner"
        make(path)
        #expect(DeviceNodeWatch(path: path).waitForArrival(timeout: .seconds(20), shouldStop: { false }))
        #expect(FileManager.default.fileExists(atPath: path))
    }

    @Test func otherNodesInTheFolderDoNotEndIt() {
        let made = make("\(folder)/printer")
        let started = ContinuousClock.now
        #expect(!DeviceNodeWatch(path: "\(folder)/scanner").waitForArrival(timeout: .seconds(2), shouldStop: { false }))
        let ended = ContinuousClock.now
        // The other node was made while the wait ran (else this test proved nothing).
        #expect(
            made.wait(timeout: .now()) == .success,
            "the printer node came only after the wait's \(ended - started)"
        )
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
