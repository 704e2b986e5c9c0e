import CGPIOD

#if canImport(Glibc)
import Glibc
#endif

/// The chips a set of lines lives on, opened through libgpiod (loaded at first use: `CGPIOD.h`), and the lines
/// requested from them. Closing releases every line (outputs go back to what the chip does alone).
final class GPIODChips {
    let api: CGPIOD_API
    private var chips: [String: OpaquePointer] = [:]
    private var requested: [OpaquePointer] = []

    init(for device: String) throws(GPIOError) {
        switch LibraryTable.load(CGPIOD_load, library: "libgpiod", package: "libgpiod2") {
        case .success(let table): api = table
        case .failure(let missing): throw GPIOError(.missingLibrary, device: device, missing.message)
        }
    }

    deinit { close() }

    func close() {
        for line in requested { api.gpiod_line_release(line) }
        requested = []
        for chip in chips.values { api.gpiod_chip_close(chip) }
        chips = [:]
    }

    private func chip(_ name: String, for address: GPIOLineAddress) throws(GPIOError) -> OpaquePointer {
        if let open = chips[name] { return open }
        guard let opened = api.gpiod_chip_open_lookup(name) else {
            let code = errno
            if code == EACCES || code == EPERM {
                throw GPIOError(
                    .accessDenied,
                    device: "\(address)",
                    "may not open GPIO chip '\(name)' — the package's udev rule gives /dev/gpiochip* to the kioskd "
                        + "group (udevadm trigger, or replug the adapter)"
                )
            }
            throw GPIOError(
                .notFound,
                device: "\(address)",
                "no GPIO chip '\(name)' — `gpiodetect` lists the chips (a USB adapter must be plugged in); set "
                    + "[door] gpio_chip"
            )
        }
        chips[name] = opened
        return opened
    }

    private func line(_ address: GPIOLineAddress) throws(GPIOError) -> OpaquePointer {
        let chip = try chip(address.chip, for: address)
        let found: OpaquePointer?
        switch address.line {
        case .offset(let offset): found = api.gpiod_chip_get_line(chip, offset)
        case .name(let name): found = api.gpiod_chip_find_line(chip, name)
        }
        guard let found else {
            throw GPIOError(
                .notFound,
                device: "\(address)",
                "chip '\(address.chip)' has no such line (it has \(api.gpiod_chip_num_lines(chip)); `gpioinfo "
                    + "\(address.chip)` lists them)"
            )
        }
        return found
    }

    /// Requests `address` as an output, inactive to begin with.
    func output(_ address: GPIOLineAddress, activeLow: Bool) throws(GPIOError) -> OpaquePointer {
        let line = try line(address)
        let flags = activeLow ? Int32(GPIOD_LINE_REQUEST_FLAG_ACTIVE_LOW) : 0
        guard api.gpiod_line_request_output_flags(line, "kioskd", flags, 0) == 0 else {
            throw requestFailed(address, line, errno)
        }
        requested.append(line)
        return line
    }

    /// Requests `address` as an input that reports both edges.
    func edges(_ address: GPIOLineAddress, activeLow: Bool) throws(GPIOError) -> OpaquePointer {
        let line = try line(address)
        let flags = activeLow ? Int32(GPIOD_LINE_REQUEST_FLAG_ACTIVE_LOW) : 0
        guard api.gpiod_line_request_both_edges_events_flags(line, "kioskd", flags) == 0 else {
            throw requestFailed(address, line, errno)
        }
        requested.append(line)
        return line
    }

    private func requestFailed(_ address: GPIOLineAddress, _ line: OpaquePointer, _ code: Int32) -> GPIOError {
        if code == EBUSY {
            let holder = api.gpiod_line_consumer(line).map { "'\(String(cString: $0))'" } ?? "another program"
            return GPIOError(
                .busy,
                device: "\(address)",
                "the line is held by \(holder) — stop it (`gpioinfo \(address.chip)` shows who holds what) or "
                    + "wire another line"
            )
        }
        return GPIOError(.io, device: "\(address)", "cannot request the line (\(String(cString: strerror(code))))")
    }

    /// The kernel's clock for line events (CLOCK_MONOTONIC), as a duration since its start.
    static func now() -> Duration {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return .seconds(time.tv_sec) + .nanoseconds(time.tv_nsec)
    }
}
