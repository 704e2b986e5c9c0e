import Foundation
import KioskCore

/// One ticket the emulator printed and cut.
public struct PrintedTicket: Sendable {
    /// 1-based count since the emulator started.
    public let number: Int
    public let image: Bitmap
    /// The text lines as printed (after code page translation), for previews and tests.
    public let text: [String]
    /// The data of the native (`GS ( k`) QR codes printed on it; a raster QR is only in the image.
    public let qrCodes: [String]
    /// Every byte received for this ticket, from the previous cut up to and including this cut.
    public let bytes: [UInt8]
    public let partialCut: Bool
    /// Where the PNG was written, if the emulator has an output directory.
    public let pngPath: String?
    /// When the cut command arrived (before the emulator rendered the ticket): what a client measures to.
    public let cutAt: ContinuousClock.Instant
    /// The same moment on the wall clock, for clients in other processes (the control language's `tickets`).
    public let cutDate: Date
}
