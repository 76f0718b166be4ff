import CEpoll

/// How the server has the C allocator give freed memory back to the system, so
/// that the memory a burst took (large values, a thousand large unfinished
/// frames) does not stay with the process once it is freed (docs/protocol.md "Memory").
///
/// glibc serves a block of at least its mmap threshold with a mapping of its own,
/// unmapped as soon as it is freed. But it raises that threshold each time such a
/// block is freed, up to 32 MiB, after which blocks of a few hundred kilobytes
/// come from the heap, where freed memory is kept for reuse. Setting the threshold
/// fixes it: every large buffer and value is a mapping, returned when freed. What
/// small blocks leave free is given back by `trim()`.
public enum SystemMemory {
    /// Blocks this large or larger are mappings of their own (glibc's default
    /// starting threshold, kept instead of raised).
    static let mappingThreshold: Int32 = 1 << 20
    /// Free memory at the top of the heap beyond this is returned at once.
    static let trimThreshold: Int32 = 8 << 20

    /// Fixes the allocator's thresholds for this process; once, at start.
    public static func returnFreedMemory() {
        _ = mallopt(M_MMAP_THRESHOLD, mappingThreshold)
        _ = mallopt(M_TRIM_THRESHOLD, trimThreshold)
    }

    /// Gives the free pages of every heap back to the system (`malloc_trim`): after
    /// many connections closed, whose buffers were small blocks.
    static func trim() {
        _ = malloc_trim(0)
    }
}
