/// How many people a store may hold at once: the one range the console, the API, kioskd's configuration and the
/// simulator accept (a store of 0 would never call anyone; beyond 100,000 is no store).
public enum StoreCapacity {
    public static let range = 1...100_000
}
