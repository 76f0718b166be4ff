/// A count with its noun for log lines, singular for one: `1 key`, `2 keys`, `0 keys`.
enum CountedNoun {
    /// `count` and `singular`, with an `s` unless `count` is 1.
    static func text(_ count: Int, _ singular: String) -> String {
        count == 1 ? "1 \(singular)" : "\(count) \(singular)s"
    }
}
