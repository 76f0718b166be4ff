#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Cuts a byte stream into lines ending in LF: the protocol's frames
/// (docs/protocol.md, through `FrameSplitter`) and the messages of etcd's watch stream.
///
/// Feed it bytes as they arrive, in any chunking, then take lines until it has none:
///
/// ```swift
/// var splitter = LineSplitter(maxLineBytes: 1 << 20)
/// splitter.append(receivedBytes)
/// while let line = try splitter.next() {
///     handle(line)   // without LF or CR
/// }
/// ```
///
/// - A CR right before the LF is removed; empty lines are skipped.
/// - A line longer than `maxLineBytes` (CR and LF not counted), or an unfinished
///   line that already is, throws ``LineTooLongError`` as soon as it is seen. The
///   splitter then drops its buffer and keeps throwing, because the stream has
///   lost its framing (its reader closes the connection).
/// - Memory: if ``next()`` is drained after each `append(_:)`, the splitter holds
///   at most one line's limit plus one append's worth of bytes. After a large
///   line its buffer shrinks back, so an idle connection that once sent a
///   megabyte does not keep a megabyte; ``releaseBuffer()`` frees it at close.
/// - Time is linear in the bytes fed, however they are chunked: bytes already
///   searched for LF are never searched again, and consumed bytes are removed
///   only once they make up half the buffer, so each byte moves O(1) times.
public struct LineSplitter: Sendable {
    /// The longest line accepted, in bytes, without CR and LF.
    public let maxLineBytes: Int

    /// Received bytes in `buffer[..<end]`; those before `lineStart` are consumed.
    /// The array is the storage, all of it initialized: its count is the room, and
    /// `end` says how much is filled. Emptying it is then setting `end` to zero
    /// (callgrind: `removeAll(keepingCapacity:)` after every read of whole lines
    /// cost about 80 instructions, appending through `append(contentsOf:)` about
    /// 110; a copy into the room costs about 40).
    private var buffer: [UInt8] = []
    /// Where the received bytes end in `buffer`.
    private var end = 0
    /// Where the next line starts in `buffer`.
    private var lineStart = 0
    /// `buffer[lineStart..<searchedUpTo]` is known to hold no LF.
    private var searchedUpTo = 0
    /// Set once a line was too long; every later ``next()`` throws it.
    private var failure: LineTooLongError?
    /// How many bytes have been searched for LF in total; tests check that it never
    /// exceeds the bytes fed, which is what keeps splitting linear.
    package private(set) var searchedByteCount = 0

    private static let lineFeed = UInt8(ascii: "\n")
    private static let carriageReturn = UInt8(ascii: "\r")

    /// Creates a splitter that accepts lines of up to `maxLineBytes` bytes.
    public init(maxLineBytes: Int) {
        self.maxLineBytes = maxLineBytes
    }

    /// The number of bytes held that do not belong to a line returned yet.
    public var bufferedByteCount: Int {
        end - lineStart
    }

    /// The bytes of memory the buffer holds (its room, filled or not), for memory accounting.
    public var retainedByteCount: Int {
        buffer.count
    }

    /// The most buffer capacity kept once the bytes held fit in less: a buffer
    /// grown for a large line is given back afterwards.
    package static let retainedCapacity = 64 << 10

    /// The most buffer capacity kept while no bytes are held: enough for the
    /// pipelined requests of one read, so a busy connection does not allocate anew
    /// per read, and small enough that idle connections hold little.
    package static let idleCapacity = 16 << 10

    /// Drops every byte held and frees the buffer (the connection is closing).
    public mutating func releaseBuffer() {
        buffer = []
        end = 0
        lineStart = 0
        searchedUpTo = 0
    }

    /// Adds received bytes. Bytes appended after a failure are dropped.
    public mutating func append(_ bytes: some Sequence<UInt8>) {
        guard failure == nil else { return }
        Array(bytes).withUnsafeBytes { append($0) }
    }

    /// Adds received bytes straight from a read buffer.
    public mutating func append(_ bytes: UnsafeRawBufferPointer) {
        guard failure == nil, !bytes.isEmpty else { return }
        reserve(adding: bytes.count)
        let start = end
        // `reserve` left room for `bytes.count` bytes after `end`: the slice is in bounds.
        buffer.withUnsafeMutableBytes { room in
            UnsafeMutableRawBufferPointer(rebasing: room[start..<start + bytes.count]).copyMemory(from: bytes)
        }
        end += bytes.count
    }

    /// Grows a buffer that outgrows `retainedCapacity` straight to room for a
    /// whole line at the limit, instead of doubling through every size on the
    /// way: one allocation, large enough that the allocator maps it on its own and
    /// unmaps it when it is freed, where the doubling would leave a trail of freed
    /// blocks in the heap that the process keeps (see `SystemMemory` in the server).
    ///
    /// Below that size it doubles, but not past `retainedCapacity`: a buffer holding
    /// at most that many bytes is no larger, which the server's input budget counts on
    /// when it lets a connection read up to that size and no further.
    private mutating func reserve(adding count: Int) {
        let needed = end + count
        guard needed > buffer.count else { return }
        if needed > Self.retainedCapacity {
            grow(to: max(needed * 2, maxLineBytes + Self.retainedCapacity))
        } else {
            grow(to: min(max(needed, buffer.count * 2), Self.retainedCapacity))
        }
    }

    /// Moves the bytes received into a new buffer with `room` bytes (at least `end`),
    /// where they keep their places.
    ///
    /// The room after them is not filled first: bytes are plain values, and the
    /// splitter reads none past `end` before `append(_:)` wrote it. Filling it
    /// cost a `memset` of the whole room, a mebibyte when a read outgrows
    /// `retainedCapacity` (callgrind: about 90 instructions a key of a pipelined `batch`).
    private mutating func grow(to room: Int) {
        let filled = end
        let grown = buffer.withUnsafeBytes { source in
            [UInt8](unsafeUninitializedCapacity: room) { target, count in
                // `room` is at least `end` (`reserve`), and `source` holds `end` bytes.
                if filled > 0, let from = source.baseAddress, let to = target.baseAddress {
                    UnsafeMutableRawPointer(to).copyMemory(from: from, byteCount: filled)
                }
                count = room
            }
        }
        buffer = grown
    }

    /// The next complete, non-empty line without its line ending, or `nil` when
    /// more bytes are needed.
    ///
    /// - Throws: ``LineTooLongError`` when a line, finished or not, is longer than
    ///   ``maxLineBytes``; then on every later call.
    public mutating func next() throws(LineTooLongError) -> [UInt8]? {
        guard let line = try nextLine() else { return nil }
        return withBytes(of: line) { Array($0) }
    }

    /// Where the next complete, non-empty line is in the buffer, without its line
    /// ending, or `nil` when more bytes are needed: ``next()`` without copying the
    /// line out. Read it with ``withBytes(of:_:)`` before the next call to this,
    /// ``next()`` or an `append`, which may move the bytes.
    ///
    /// A server that decodes each frame where it lies saves an allocation and a
    /// copy per request (about 580 instructions a `set`, callgrind).
    ///
    /// - Throws: as ``next()``.
    public mutating func nextLine() throws(LineTooLongError) -> Range<Int>? {
        if let failure { throw failure }
        // Every byte received was taken as lines, the common case after a read of
        // whole lines: nothing to search, and the buffer is emptied as below.
        if lineStart == end {
            compact()
            return nil
        }
        while let lineFeedIndex = firstLineFeed(from: searchedUpTo) {
            searchedByteCount += lineFeedIndex + 1 - searchedUpTo
            let start = lineStart
            var end = lineFeedIndex
            if end > start, buffer[end - 1] == Self.carriageReturn {
                end -= 1
            }
            lineStart = lineFeedIndex + 1
            searchedUpTo = lineStart
            guard end - start <= maxLineBytes else {
                throw fail()
            }
            if end > start {
                return start..<end
            }
        }
        searchedByteCount += end - searchedUpTo
        searchedUpTo = end
        guard unfinishedLineFits() else {
            throw fail()
        }
        compact()
        return nil
    }

    /// Calls `body` with the bytes of a line that ``nextLine()`` returned; they
    /// live only during the call.
    public func withBytes<Result>(
        of line: Range<Int>, _ body: (UnsafeBufferPointer<UInt8>) throws -> Result
    ) rethrows -> Result {
        try buffer.withUnsafeBufferPointer { bytes in try body(UnsafeBufferPointer(rebasing: bytes[line])) }
    }

    /// The index of the first LF at or after `start`, found with `memchr`, which
    /// scans a word at a time where a loop over the bytes takes one.
    private func firstLineFeed(from start: Int) -> Int? {
        buffer.withUnsafeBufferPointer { bytes in
            guard start < end, let base = bytes.baseAddress,
                let found = memchr(base + start, Int32(Self.lineFeed), end - start)
            else { return nil }
            return UnsafeRawPointer(base).distance(to: UnsafeRawPointer(found))
        }
    }

    /// Whether the bytes after the last LF could still become a line within the
    /// limit (a final CR may be part of the line ending).
    private func unfinishedLineFits() -> Bool {
        let length = end - lineStart
        if length <= maxLineBytes { return true }
        return length == maxLineBytes + 1 && buffer[end - 1] == Self.carriageReturn
    }

    /// Removes consumed bytes once they are at least half the buffer, so that each
    /// byte is moved a bounded number of times.
    private mutating func compact() {
        guard lineStart > 0, lineStart * 2 >= end else { return }
        let remaining = end - lineStart
        if remaining == 0 && buffer.count > Self.idleCapacity {
            // Nothing left: an idle connection keeps no large buffer, since
            // thousands of idle connections would hold it all uncounted.
            buffer = []
        } else if buffer.count > Self.retainedCapacity && remaining <= Self.retainedCapacity / 2 {
            // Shrink after a large line: copy what is left into a small buffer.
            buffer = Array(buffer[lineStart..<end])
        } else if remaining > 0 {
            let start = lineStart
            // Both ranges lie in `buffer[..<end]`; they may overlap, which `memmove` allows.
            buffer.withUnsafeMutableBytes { room in
                guard let base = room.baseAddress else { return }
                _ = memmove(base, base + start, remaining)
            }
        }
        end = remaining
        searchedUpTo -= lineStart
        lineStart = 0
    }

    private mutating func fail() -> LineTooLongError {
        let error = LineTooLongError(limit: maxLineBytes)
        failure = error
        buffer = []
        end = 0
        lineStart = 0
        searchedUpTo = 0
        return error
    }
}
