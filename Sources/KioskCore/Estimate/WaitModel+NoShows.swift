/// App tickets that never come, by how long they had waited in line when called.
extension WaitModel {
    /// Minutes waited in line when called that divide ``appNoShowByWait``'s bins (the last bin: 60 and more).
    public static let noShowWaitEdges: [Double] = [2, 5, 10, 15, 20, 30, 45, 60]

    /// The bin of ``appNoShowByWait`` of a wait in line of `minutes`.
    public static func noShowBin(waitedMinutes minutes: Double) -> Int {
        noShowWaitEdges.firstIndex { minutes < $0 } ?? noShowWaitEdges.count
    }

    /// One no-show share for every called app ticket and booking, whatever its wait.
    public mutating func setNoShow(_ share: Double) {
        noShow = min(max(share, 0), 0.95)
        cameAfterWindow = min(cameAfterWindow, noShow)
        neverCame = noShow - cameAfterWindow
        appNoShowByWait = Array(repeating: noShow, count: Self.noShowWaitEdges.count + 1)
        bookingNoShow = noShow
    }

    /// The share of app tickets called after `minutes` in line that never come.
    public func appNoShow(waitedMinutes minutes: Double) -> Double {
        let bin = Self.noShowBin(waitedMinutes: minutes)
        return bin < appNoShowByWait.count ? appNoShowByWait[bin] : noShow
    }
}
