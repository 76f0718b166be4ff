#if canImport(Glibc)
    import Glibc
#endif

/// `CLOCK_MONOTONIC` in nanoseconds: the one clock for send stamps, receive times and
/// timer deadlines, read directly because the driver reads it once per socket read.
enum MonotonicClock {
    static func now() -> UInt64 {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return UInt64(time.tv_sec) &* 1_000_000_000 &+ UInt64(time.tv_nsec)
    }

    /// Nanoseconds in `seconds`.
    static func nanoseconds(_ seconds: Double) -> UInt64 {
        UInt64(seconds * 1e9)
    }
}
