import Testing

@testable import ObservatoryHTTP

@Suite struct InputBufferTests {
    @Test func consumedBytesAreDroppedOnTheNextAppend() {
        var buffer = InputBuffer()
        buffer.append(bytes("abcdef"))
        buffer.consume(4)
        buffer.append(bytes("g"))
        #expect(buffer.readIndex == 0)
        #expect(buffer.read(3) == bytes("efg"))
    }

    @Test func storageGrownForALargeBodyIsGivenBack() throws {
        var decoder = HTTPRequestDecoder(maxBodyBytes: 1 << 20)
        decoder.append(
            bytes("PUT / HTTP/1.1\r\nContent-Length: 500000\r\n\r\n") + [UInt8](repeating: 1, count: 500_000))
        while let part = try decoder.next() {
            if part == .end { break }
        }
        #expect(decoder.retainedByteCount >= 500_000)
        decoder.append(bytes("GET / HTTP/1.1\r\n\r\n"))
        #expect(decoder.retainedByteCount <= InputBuffer.retainedCapacity)
        guard case .head = try decoder.next() else {
            Issue.record("no head")
            return
        }
    }

    @Test func offsetsAreCountedFromTheReadIndex() {
        var buffer = InputBuffer()
        buffer.append(bytes("xx\nab\ncd"))
        buffer.consume(3)
        #expect(buffer.firstOffset(of: UInt8(ascii: "\n"), from: 0) == 2)
        #expect(buffer.firstOffset(of: UInt8(ascii: "\n"), from: 3) == nil)
        #expect(buffer[offset: 0] == UInt8(ascii: "a"))
    }
}
