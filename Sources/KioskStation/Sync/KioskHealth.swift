import SyncWire

extension KioskHealth {
    /// The printer's state in one word, the paper first: what needs a person comes before what does not.
    public static func printerState(_ status: PrinterStationStatus) -> String {
        if status.paper == "out" { return "paper_out" }
        if status.conditions.contains("cover_open") { return "cover_open" }
        if status.state == .fault { return "fault" }
        if status.paper == "near_end", [.ready, .printing, .closed, .pastClosing].contains(status.state) {
            return "paper_near_end"
        }
        // Handing out none until the line is shorter, as a closed store: a server of any version knows the word.
        if status.state == .pastClosing { return "closed" }
        return status.state.rawValue
    }
}
