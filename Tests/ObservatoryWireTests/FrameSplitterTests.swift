import Testing

@testable import ObservatoryWire

@Suite struct FrameSplitterTests {
    /// All frames available now, as text.
    private func drain(_ splitter: inout FrameSplitter) throws -> [String] {
        var frames: [String] = []
        while let frame = try splitter.next() {
            frames.append(text(frame))
        }
        return frames
    }

    @Test func manyFramesInOneAppendComeOutInOrder() throws {
        var splitter = FrameSplitter()
        splitter.append(Array("{\"op\":\"ping\"}\n{\"a\":1}\n[2]\n".utf8))
        #expect(try drain(&splitter) == ["{\"op\":\"ping\"}", "{\"a\":1}", "[2]"])
        #expect(splitter.bufferedByteCount == 0)
    }

    @Test func framesReadInPlaceAreTheFramesNextCopies() throws {
        let stream = Array("{\"op\":\"ping\"}\r\n\n[2]\nunfinished".utf8)
        var copying = FrameSplitter()
        var inPlace = FrameSplitter()
        copying.append(stream)
        inPlace.append(stream)
        var copied: [[UInt8]] = []
        while let frame = try copying.next() { copied.append(frame) }
        var read: [[UInt8]] = []
        while let frame = try inPlace.nextFrame() { read.append(inPlace.withBytes(of: frame) { Array($0) }) }
        #expect(read == copied)
        #expect(read.map(text) == ["{\"op\":\"ping\"}", "[2]"])
        #expect(inPlace.bufferedByteCount == copying.bufferedByteCount)
    }

    @Test func bytesFedOneAtATimeMakeTheSameFrames() throws {
        let stream = Array("first\nsecond\r\n\nthird\n".utf8)
        var splitter = FrameSplitter()
        var frames: [String] = []
        for byte in stream {
            splitter.append(CollectionOfOne(byte))
            frames += try drain(&splitter)
        }
        #expect(frames == ["first", "second", "third"])
    }

    @Test func aFrameIsReturnedOnlyOnceItsLineFeedArrives() throws {
        var splitter = FrameSplitter()
        splitter.append(Array("{\"a\":".utf8))
        #expect(try splitter.next() == nil)
        splitter.append(Array("1}".utf8))
        #expect(try splitter.next() == nil)
        #expect(splitter.bufferedByteCount == 7)
        splitter.append(Array("\n".utf8))
        #expect(try drain(&splitter) == ["{\"a\":1}"])
    }

    @Test func carriageReturnBeforeLineFeedIsRemovedButNotElsewhere() throws {
        var splitter = FrameSplitter()
        splitter.append(Array("a\r\nb\rc\n\r\r\n".utf8))
        #expect(try drain(&splitter) == ["a", "b\rc", "\r"])
    }

    @Test func emptyLinesAreSkipped() throws {
        var splitter = FrameSplitter()
        splitter.append(Array("\n\n\r\nx\n\n".utf8))
        #expect(try drain(&splitter) == ["x"])
    }

    @Test func rawBufferAppendsWorkLikeArrays() throws {
        var splitter = FrameSplitter()
        Array("ab\ncd\n".utf8).withUnsafeBytes { splitter.append($0) }
        #expect(try drain(&splitter) == ["ab", "cd"])
    }

    @Test func aLineAtTheLimitIsAccepted() throws {
        var splitter = FrameSplitter(maxFrameBytes: 4)
        splitter.append(Array("abcd\r\nwxyz\n".utf8))
        #expect(try drain(&splitter) == ["abcd", "wxyz"])
    }

    @Test func anOversizeLineThrowsFrameTooLarge() throws {
        var splitter = FrameSplitter(maxFrameBytes: 4)
        splitter.append(Array("ok\nabcde\n".utf8))
        #expect(try splitter.next() == Array("ok".utf8))
        #expect(throws: WireError.frameTooLarge(limit: 4)) { try splitter.next() }
    }

    @Test func anOversizePartialLineThrowsBeforeItsLineFeedArrives() {
        var splitter = FrameSplitter(maxFrameBytes: 4)
        splitter.append(Array("abcd".utf8))
        #expect(throws: Never.self) { try splitter.next() }
        splitter.append(Array("e".utf8))
        do {
            _ = try splitter.next()
            Issue.record("a 5-byte partial line must exceed a 4-byte limit")
        } catch {
            #expect(error.code == .frameTooLarge)
            #expect(error.message.contains("4 bytes"))
        }
        #expect(splitter.bufferedByteCount == 0)
    }

    @Test func aPartialLineEndingInCarriageReturnMayReachTheLimitPlusOne() throws {
        var splitter = FrameSplitter(maxFrameBytes: 4)
        splitter.append(Array("abcd\r".utf8))
        #expect(try splitter.next() == nil)
        splitter.append(Array("\n".utf8))
        #expect(try splitter.next() == Array("abcd".utf8))
    }

    @Test func afterAnOversizeFrameEveryCallThrowsAndNewBytesAreDropped() {
        var splitter = FrameSplitter(maxFrameBytes: 2)
        splitter.append(Array("abc".utf8))
        #expect(throws: WireError.self) { try splitter.next() }
        splitter.append(Array("\nok\n".utf8))
        #expect(splitter.bufferedByteCount == 0)
        #expect(throws: WireError.frameTooLarge(limit: 2)) { try splitter.next() }
    }

    @Test func drainedSplitterHoldsNoMoreThanItsPartialLine() throws {
        var splitter = FrameSplitter(maxFrameBytes: 64)
        for index in 0..<1000 {
            splitter.append(Array("frame \(index)\npart".utf8))
            _ = try drain(&splitter)
            splitter.append(Array("ial\n".utf8))
            _ = try drain(&splitter)
            #expect(splitter.bufferedByteCount == 0)
        }
    }

    @Test func splittingOneMebibyteByteByByteSearchesEachByteOnce() throws {
        let size = 1 << 20
        var splitter = FrameSplitter(maxFrameBytes: size)
        var frames: [[UInt8]] = []
        for index in 0..<size {
            splitter.append(CollectionOfOne(UInt8(ascii: "a") + UInt8(index % 26)))
            if let frame = try splitter.next() {
                frames.append(frame)
            }
        }
        splitter.append(CollectionOfOne(UInt8(ascii: "\n")))
        if let frame = try splitter.next() {
            frames.append(frame)
        }
        #expect(frames.count == 1)
        #expect(frames.first?.count == size)
        #expect(frames.first?.last == UInt8(ascii: "a") + UInt8((size - 1) % 26))
        // Linear: every byte fed was searched for a line feed exactly once.
        #expect(splitter.searchedByteCount == size + 1)
    }

    @Test func manySmallFramesByteByByteSearchEachByteOnce() throws {
        let frame = Array("{\"op\":\"ping\",\"id\":1}\r\n".utf8)
        var splitter = FrameSplitter()
        var count = 0
        for _ in 0..<2000 {
            for byte in frame {
                splitter.append(CollectionOfOne(byte))
                while try splitter.next() != nil { count += 1 }
            }
        }
        #expect(count == 2000)
        #expect(splitter.searchedByteCount == 2000 * frame.count)
        #expect(splitter.bufferedByteCount == 0)
    }
}

@Suite struct FrameSplitterMemoryTests {
    @Test func theBufferShrinksBackAfterALargeFrame() throws {
        var splitter = FrameSplitter()
        let large = [UInt8](repeating: UInt8(ascii: "x"), count: 1 << 20) + [10]
        splitter.append(large)
        #expect(try splitter.next()?.count == 1 << 20)
        #expect(try splitter.next() == nil)
        #expect(splitter.retainedByteCount <= 64 << 10)
        splitter.append(Array("{\"op\":\"ping\"}\n".utf8))
        #expect(try splitter.next() == Array("{\"op\":\"ping\"}".utf8))
    }

    @Test func aLargeFrameFollowedByAPartialOneKeepsThePartOnly() throws {
        var splitter = FrameSplitter()
        splitter.append([UInt8](repeating: UInt8(ascii: "x"), count: 1 << 20) + [10] + Array("{\"op\"".utf8))
        #expect(try splitter.next()?.count == 1 << 20)
        #expect(try splitter.next() == nil)
        #expect(splitter.retainedByteCount <= 64 << 10)
        splitter.append(Array(":\"ping\"}\n".utf8))
        #expect(try splitter.next() == Array("{\"op\":\"ping\"}".utf8))
    }

    /// The server's input budget lets a connection over its cap read up to 64 KiB
    /// held and no further, counting on a buffer that holds that much being no larger.
    @Test func aBufferHoldingUpTo64KiBIsNoLargerWhateverTheChunks() throws {
        var splitter = FrameSplitter()
        for chunk in [30_000, 20_000, 10_000, 5_536] {
            splitter.append([UInt8](repeating: UInt8(ascii: "x"), count: chunk))
            #expect(try splitter.next() == nil)
        }
        #expect(splitter.bufferedByteCount == 64 << 10)
        // Slack for the allocator's rounding only; doubling would have given 120,000.
        #expect(splitter.retainedByteCount < (64 << 10) + 1_024, "\(splitter.retainedByteCount)")
    }

    @Test func releasingTheBufferFreesIt() {
        var splitter = FrameSplitter()
        splitter.append([UInt8](repeating: 1, count: 100_000))
        #expect(splitter.retainedByteCount >= 100_000)
        splitter.releaseBuffer()
        #expect(splitter.retainedByteCount == 0)
        #expect(splitter.bufferedByteCount == 0)
    }
}
