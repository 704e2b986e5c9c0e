import CLibUSB
import Glibc

/// Waits for a USB printer to be plugged (back) in: libusb's hotplug notices (from udev) end the wait as soon
/// as a device with the wanted vendor/product arrives, so a reconnect loop resumes well within a second of a
/// replug instead of at its next retry. Where hotplug is not available there is no watch, and the caller's
/// retries find the printer.
///
/// Arrivals are queued by libusb between waits, so one that comes while the caller is busy ends the next wait
/// at once. Used from one thread at a time.
public final class USBArrivalWatch: ArrivalWatch {
    private let match: USBMatch
    private let context: OpaquePointer
    private var callback: libusb_hotplug_callback_handle = 0
    /// Set by the hotplug callback (called by libusb on the waiting thread, inside `handle_events`).
    fileprivate var arrived = false
    private var lookedForPresence = false

    /// Starts watching for `match`'s vendor/product (any device when the match names neither); nil where
    /// libusb cannot tell arrivals.
    public init?(match: USBMatch) {
        self.match = match
        var ctx: OpaquePointer?
        guard libusb_init(&ctx) == 0, let ctx else { return nil }
        guard libusb_has_capability(UInt32(LIBUSB_CAP_HAS_HOTPLUG.rawValue)) != 0 else {
            libusb_exit(ctx)
            return nil
        }
        context = ctx
        let any = LIBUSB_HOTPLUG_MATCH_ANY
        let rc = libusb_hotplug_register_callback(
            ctx,
            CInt(LIBUSB_HOTPLUG_EVENT_DEVICE_ARRIVED.rawValue),
            0,
            match.vendor.map { CInt($0) } ?? any,
            match.product.map { CInt($0) } ?? any,
            any,
            { _, _, _, user in
                guard let user else { return 0 }
                Unmanaged<USBArrivalWatch>.fromOpaque(user).takeUnretainedValue().arrived = true
                return 0
            },
            Unmanaged.passUnretained(self).toOpaque(),
            &callback
        )
        // (Fully initialised by now: deinit gives the context back.)
        guard rc == 0 else { return nil }
    }

    deinit {
        libusb_hotplug_deregister_callback(context, callback)
        libusb_exit(context)
    }

    /// Returns true as soon as a matching device arrives, false when `timeout` passes first or `shouldStop`
    /// (asked every 100 ms) says to give up.
    public func waitForArrival(timeout: Duration, shouldStop: () -> Bool) -> Bool {
        let clock = ContinuousClock()
        let deadline = clock.now.advanced(by: timeout)
        arrived = false
        // Plugged in while this watch was being set up: libusb saw it while enumerating, and tells no arrival.
        // (Only the first time: a device that is there but cannot be used must not end every wait.)
        if !lookedForPresence {
            lookedForPresence = true
            if isPresent { return true }
        }
        while !arrived && !shouldStop() {
            let left = clock.now.duration(to: deadline)
            guard left > .zero else { break }
            let slice = min(left, .milliseconds(100))
            var tv = timeval(tv_sec: 0, tv_usec: Int(max(slice.milliseconds, 1)) * 1000)
            var completed: CInt = 0
            _ = libusb_handle_events_timeout_completed(context, &tv, &completed)
        }
        return arrived
    }

    /// Whether a device with the wanted vendor/product is in libusb's list (updated from udev). A match by
    /// printer class alone is not looked for: any device would do, and the wait would never wait.
    private var isPresent: Bool {
        guard match.vendor != nil || match.product != nil else { return false }
        var list: UnsafeMutablePointer<OpaquePointer?>?
        let count = libusb_get_device_list(context, &list)
        guard count > 0, let list else { return false }
        defer { libusb_free_device_list(list, 1) }
        for i in 0..<count {
            var desc = libusb_device_descriptor()
            guard let device = list[i], libusb_get_device_descriptor(device, &desc) == 0 else { continue }
            if (match.vendor ?? desc.idVendor) == desc.idVendor && (match.product ?? desc.idProduct) == desc.idProduct {
                return true
            }
        }
        return false
    }
}
