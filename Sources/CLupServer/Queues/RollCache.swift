import KioskCore
import Synchronization

/// One store's roll of its line, kept between requests (issue 44: a take or a status read at a store with a
/// thousand waiting rolled the whole line again, and ran six to eight times slower than at a store with thirty).
/// A roll is good for the line it was made from, for the grid step it started in (30 s, the grid a roll tells
/// waits on: a roll made later in the step tells the same steps), and it goes on over tickets that joined the
/// line's end since (an app ticket taken: it takes the next place and changes no place ahead) and over admissions,
/// exits and expiries (``WaitEstimator/Roll/realign(to:at:)``). Any other change of the store makes a new roll.
final class RollCache: Sendable {
    private struct Kept {
        var roll: WaitEstimator.Roll
        var epoch: Int
        var estimatorEpoch: Int
        var joined: Int
        var grid: Int64

        /// Goes on over `live`'s line at `now`, in the roll's grid step: over tickets joined at its end since, or
        /// over any other change it can tell (``WaitEstimator/Roll/realign(to:at:)``).
        mutating func goesOn(to live: StoreQueues.Live, at now: Timestamp) -> Bool {
            guard estimatorEpoch == live.estimatorEpoch else { return false }
            if epoch == live.lineEpoch, joined <= live.joinedAtEnd.count {
                return roll.extend(to: live.state, joined: Array(live.joinedAtEnd[joined...]))
            }
            return roll.realign(to: live.state, at: now)
        }
    }

    private let kept = Mutex<Kept?>(nil)

    /// The told wait of `position` in `live`'s line at `now`.
    func wait(position: Int, in live: StoreQueues.Live, at now: Timestamp) -> WaitRange {
        let grid = now.milliseconds.floorDivided(by: Int64(WaitEstimator.step.components.seconds) * 1000)
        return kept.withLock { kept in
            // Taken out while asked: a copy left in `kept` would make each change below copy the whole roll.
            var entry: Kept
            if var previous = kept.take(), previous.grid == grid, previous.goesOn(to: live, at: now) {
                previous.epoch = live.lineEpoch
                previous.joined = live.joinedAtEnd.count
                entry = previous
            } else {
                entry = Kept(
                    roll: live.estimator.roll(live.state, at: now),
                    epoch: live.lineEpoch,
                    estimatorEpoch: live.estimatorEpoch,
                    joined: live.joinedAtEnd.count,
                    grid: grid
                )
            }
            let told = entry.roll.wait(position: position)
            kept = entry
            return told
        }
    }
}
