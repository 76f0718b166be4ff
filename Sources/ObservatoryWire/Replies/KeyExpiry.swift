#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// When an expiring key expires: the `ttl` of the write that set it, who made
/// that write, and the instant it runs out, so that a server can delete the key
/// on time in that author's name and say how long it has left.
///
/// A server keeps it with the entry (``KeyEntry/expiry``); on the wire an
/// entry carries only `"ttl"`, the whole seconds left when the message was made
/// (``secondsLeft(now:)``).
///
/// A class, so that an entry that does not expire pays one empty reference for
/// it, not the room of its fields: a store holds millions of entries.
public final class KeyExpiry: Sendable, Hashable {
    /// The `ttl` of the write that set the expiry, in seconds.
    public let seconds: Int64
    /// When the key expires, in milliseconds since 1970-01-01 UTC by the server's clock.
    public let deadline: Int64
    /// The author name of the write that set the expiry: the expired delete's author.
    public let author: String
    /// The session id of the write that set the expiry: the expired delete's session.
    public let session: String

    /// Creates an expiry `seconds` after `now` (milliseconds since 1970), set by `author`.
    public convenience init(seconds: Int64, after now: Int64, by author: Author) {
        self.init(seconds: seconds, deadline: now + seconds * 1_000, author: author.name, session: author.session)
    }

    /// Creates an expiry with its deadline and author given.
    public init(seconds: Int64, deadline: Int64, author: String, session: String) {
        self.seconds = seconds
        self.deadline = deadline
        self.author = author
        self.session = session
    }

    /// Expiries are equal when their seconds, deadline, author and session are.
    public static func == (lhs: KeyExpiry, rhs: KeyExpiry) -> Bool {
        lhs.seconds == rhs.seconds && lhs.deadline == rhs.deadline && lhs.author == rhs.author
            && lhs.session == rhs.session
    }

    /// Hashes the seconds, deadline, author and session, which `==` compares.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(seconds)
        hasher.combine(deadline)
        hasher.combine(author)
        hasher.combine(session)
    }

    /// The whole seconds left at `now` (milliseconds since 1970), rounded up;
    /// 0 once the deadline has passed.
    public func secondsLeft(now: Int64) -> Int64 {
        let left = deadline - now
        guard left > 0 else { return 0 }
        return (left + 999) / 1_000
    }

    /// The wall clock in milliseconds since 1970-01-01 UTC.
    public static func wallMilliseconds() -> Int64 {
        var time = timespec()
        clock_gettime(CLOCK_REALTIME, &time)
        return Int64(time.tv_sec) * 1_000 + Int64(time.tv_nsec) / 1_000_000
    }
}
