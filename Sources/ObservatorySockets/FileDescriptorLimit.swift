#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#endif

/// The process's limit on open files, which caps the number of connections.
public enum FileDescriptorLimit {
    /// What happened when the server tried to raise the limit.
    public struct Outcome: Sendable, Equatable {
        /// The soft limit before.
        public let before: UInt64
        /// The soft limit after (equal to `before` if it could not be raised).
        public let after: UInt64
        /// The error number if raising failed.
        public let failure: Int32?
    }

    /// Raises the soft limit to the hard limit, since every connection costs one descriptor.
    @discardableResult
    public static func raiseToMaximum() -> Outcome {
        var limits = rlimit()
        guard getrlimit(Platform.openFilesResource, &limits) == 0 else {
            return Outcome(before: 0, after: 0, failure: errno)
        }
        let before = UInt64(limits.rlim_cur)
        guard limits.rlim_cur < limits.rlim_max else { return Outcome(before: before, after: before, failure: nil) }
        limits.rlim_cur = limits.rlim_max
        guard setrlimit(Platform.openFilesResource, &limits) == 0 else {
            return Outcome(before: before, after: before, failure: errno)
        }
        return Outcome(before: before, after: UInt64(limits.rlim_cur), failure: nil)
    }
}
