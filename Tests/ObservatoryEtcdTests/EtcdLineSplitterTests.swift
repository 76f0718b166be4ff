import Testing

@testable import ObservatoryEtcd

/// The watch body is cut into messages whatever its chunking.
@Suite struct EtcdLineSplitterTests {
    private let stream = GatewayCaptures.watchStream.joined(separator: "\n") + "\n"

    @Test func messagesSplitAcrossChunksComeOutWhole() throws {
        var splitter = EtcdLineSplitter()
        var lines: [[UInt8]] = []
        for byte in stream.utf8 { lines += try splitter.append([byte]) }
        #expect(lines.map { String(decoding: $0, as: UTF8.self) } == GatewayCaptures.watchStream)
    }

    @Test func severalMessagesInOneChunkComeOutInOrder() throws {
        var splitter = EtcdLineSplitter()
        let lines = try splitter.append(Array(stream.utf8))
        #expect(lines.count == GatewayCaptures.watchStream.count)
        #expect(try splitter.append([]).isEmpty)
    }

    @Test func blankLinesAreSkipped() throws {
        var splitter = EtcdLineSplitter()
        #expect(try splitter.append(Array("\n\r\n{}\n".utf8)) == [Array("{}".utf8)])
    }

    @Test func endlessMessageIsAnInvalidResponse() throws {
        var splitter = EtcdLineSplitter()
        let chunk = [UInt8](repeating: UInt8(ascii: "x"), count: 1 << 20)
        #expect {
            for _ in 0...16 { _ = try splitter.append(chunk) }
        } throws: { error in
            (error as? EtcdError)?.code == .invalidResponse
        }
    }
}
