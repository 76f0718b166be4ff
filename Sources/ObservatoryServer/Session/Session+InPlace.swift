import ObservatoryWire

#if canImport(Glibc)
    import Glibc
#endif

// Frames answered where a read left them: while the splitter holds nothing, a
// read's whole frames are decoded in the loop's read buffer, not copied into the
// splitter first; only what answering leaves of the read is copied.
extension Session {
    /// Takes received bytes that stay where they are (the loop's read buffer)
    /// until `keepUnansweredInput()`, which the caller runs once it has asked for
    /// the answers and before the bytes change. While the splitter holds nothing,
    /// their frames are answered in place (callgrind: the copy into the splitter
    /// and its search cost about 150 instructions a read); otherwise they are
    /// copied behind the ones held, as `receive(_:)` does.
    func receiveInPlace(_ bytes: UnsafeRawBufferPointer) {
        guard !isClosing else { return }
        guard splitter.bufferedByteCount == 0, inPlace.isEmpty else { return receive(bytes) }
        inPlace = bytes.bindMemory(to: UInt8.self)
    }

    /// Copies what answering left of the bytes taken in place into the splitter,
    /// where the next answers find it.
    func keepUnansweredInput() {
        guard !inPlace.isEmpty else { return }
        let rest = UnsafeRawBufferPointer(inPlace)
        inPlace = UnsafeBufferPointer(start: nil, count: 0)
        if !isClosing { splitter.append(rest) }
    }

    /// The next complete, non-empty frame of the bytes taken in place, without
    /// its line ending, as the splitter would cut it; `nil` when none is left
    /// whole (an unfinished one then goes to the splitter, which checks its length).
    ///
    /// - Throws: `frame_too_large` for a frame longer than the splitter's limit.
    func nextFrameInPlace() throws(WireError) -> UnsafeBufferPointer<UInt8>? {
        while let base = inPlace.baseAddress, !inPlace.isEmpty {
            // `memchr` reads within the `inPlace.count` bytes at `base`.
            guard let found = memchr(base, Int32(UInt8(ascii: "\n")), inPlace.count) else {
                keepUnansweredInput()
                return nil
            }
            let lineFeed = UnsafeRawPointer(base).distance(to: UnsafeRawPointer(found))
            var end = lineFeed
            if end > 0, base[end - 1] == UInt8(ascii: "\r") { end -= 1 }
            inPlace = UnsafeBufferPointer(rebasing: inPlace[(lineFeed + 1)...])
            guard end <= splitter.maxFrameBytes else { throw WireError.frameTooLarge(limit: splitter.maxFrameBytes) }
            if end > 0 { return UnsafeBufferPointer(start: base, count: end) }
        }
        return nil
    }
}
