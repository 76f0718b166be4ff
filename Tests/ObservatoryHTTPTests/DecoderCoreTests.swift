import Testing

@testable import ObservatoryHTTP

/// A machine for the core's rules alone: parts are LF-ended lines, `!` is a fault.
private struct LineMachine: DecodingMachine {
    struct Fault: Error, Equatable {
        let offset: Int
    }

    var stepCount = 0

    mutating func next(from buffer: inout InputBuffer, inputFinished: Bool) throws(Fault) -> String? {
        stepCount += 1
        if let fault = buffer.firstOffset(of: UInt8(ascii: "!"), from: 0) { throw Fault(offset: fault) }
        guard let end = buffer.firstOffset(of: UInt8(ascii: "\n"), from: 0) else {
            if inputFinished && buffer.readableCount > 0 { throw Fault(offset: buffer.readableCount) }
            return nil
        }
        let line = buffer.read(end)
        buffer.consume(1)
        return String(decoding: line, as: UTF8.self)
    }
}

@Suite struct DecoderCoreTests {
    @Test func partsComeOutInAnyChunking() throws {
        var core = DecoderCore(machine: LineMachine())
        var lines: [String] = []
        for byte in bytes("one\ntwo\nthr") {
            core.append([byte])
            while let line = try core.next() { lines.append(line) }
        }
        #expect(lines == ["one", "two"])
        #expect(core.bufferedByteCount == 3)
    }

    @Test func aFailureIsThrownAgainWithoutAskingTheMachine() {
        var core = DecoderCore(machine: LineMachine())
        core.append(bytes("ab!c\n"))
        #expect(throws: LineMachine.Fault(offset: 2)) { try core.next() }
        core.append(bytes("fine\n"))
        #expect(throws: LineMachine.Fault(offset: 2)) { try core.next() }
        #expect(core.machine.stepCount == 1)
        #expect(core.failure == LineMachine.Fault(offset: 2))
    }

    @Test func aFailureFreesTheBufferAndDropsLaterBytes() {
        var core = DecoderCore(machine: LineMachine())
        core.append([UInt8](repeating: UInt8(ascii: "x"), count: 100_000) + bytes("!"))
        #expect(core.retainedByteCount >= 100_000)
        #expect(throws: LineMachine.Fault.self) { try core.next() }
        #expect(core.retainedByteCount == 0)
        core.append(bytes("more\n"))
        let pointerBytes = bytes("raw\n")
        pointerBytes.withUnsafeBytes { core.append($0) }
        #expect(core.bufferedByteCount == 0)
    }

    @Test func finishingTellsTheMachineThatNoMoreBytesCome() throws {
        var core = DecoderCore(machine: LineMachine())
        core.append(bytes("cut"))
        #expect(try core.next() == nil)
        core.finish()
        #expect(core.inputFinished)
        #expect(throws: LineMachine.Fault(offset: 3)) { try core.next() }
    }

    @Test func remainingBytesAreHandedOverOnce() throws {
        var core = DecoderCore(machine: LineMachine())
        core.append(bytes("head\nrest"))
        #expect(try core.next() == "head")
        #expect(core.takeRemainingBytes() == bytes("rest"))
        #expect(core.bufferedByteCount == 0)
        #expect(core.takeRemainingBytes().isEmpty)
    }
}
