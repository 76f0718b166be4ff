import ObservatoryTestSupport
import Testing

@testable import ObservatoryJSON
@testable import ObservatoryWire

/// The quick reader of a `set` must answer as the full decoder does, byte for byte, or not at all.
@Suite struct QuickSetReaderTests {
    private func quick(_ frame: String, limits: RequestLimits = .default) -> Request<EncodedJSON>? {
        Array(frame.utf8).withUnsafeBufferPointer { QuickSetReader.request(in: $0, limits: limits) }
    }

    @Test func theUsualSetIsReadInOnePass() throws {
        let frame = #"{"op":"set","id":41,"key":"loadgen.k.77","value":{"seq":1,"ts":2,"pad":"xx"}}"#
        let request = try #require(quick(frame))
        #expect(request.id == .integer(41))
        #expect(request.kind == .set)
        let value = EncodedJSON(["seq": 1, "ts": 2, "pad": "xx"])
        #expect(request.operation == .set(key: "loadgen.k.77", value: value, ifVersion: nil))
        #expect(SetReaderReference.valueBytes(request) == Array(#"{"seq":1,"ts":2,"pad":"xx"}"#.utf8))
        guard case .set(_, let sent, _, _, _, _) = request.operation else { return }
        #expect(sent.namesAreUnique)
    }

    @Test(arguments: [
        #"{"value":[1, 2.5],"key":"k","op":"set"}"#, #" { "id" : "a7" , "op" : "set" , "key":"k", "value" : "v" } "#,
        #"{"op":"set","id":-5,"key":"k","value":null}"#, #"{"op":"set","id":0,"key":"k","value":{"a":{"a":1}}}"#,
        #"{"op":"set","key":"k","value":{"a":1,"a":2}}"#, #"{"op":"set","key":"k","value":"\u00e9\n"}"#,
    ])
    func otherSpellingsOfTheUsualSetAreReadToo(_ frame: String) throws {
        let request = try #require(quick(frame))
        let expected = try SetReaderReference.full(Array(frame.utf8), limits: .default).get()
        #expect(request == expected)
        #expect(request.id == expected.id)
        #expect(SetReaderReference.valueBytes(request) == SetReaderReference.valueBytes(expected))
    }

    @Test(arguments: [
        // Other ops, other or repeated members, escapes, ids the full decoder reads.
        #"{"op":"get","key":"k"}"#, #"{"op":"set","key":"k","value":1,"ifVersion":1}"#,
        #"{"op":"set","key":"k","value":1,"value":2}"#, #"{"op":"set","op":"set","key":"k","value":1}"#,
        #"{"op":"s\u0065t","key":"k","value":1}"#, #"{"op":"set","key":"\u006b","value":1}"#,
        #"{"op":"set","id":1.0,"key":"k","value":1}"#, #"{"op":"set","id":1e2,"key":"k","value":1}"#,
        #"{"op":"set","id":01,"key":"k","value":1}"#, #"{"op":"set","id":1234567890123456789,"key":"k","value":1}"#,
        #"{"op":"set","id":null,"key":"k","value":1}"#, #"{"op":"set","key":"a b","value":1}"#,
        #"{"op":"set","key":"","value":1}"#, #"{"op":"set","key":"k"}"#, #"{"op":"set","value":1}"#,
        #"{"op":"set","key":"k","value":"é"}"#, #"{"op":"set","key":"k","value":1e3}"#,
        #"{"op":"set","key":"k","value":[1,]}"#, #"{"op":"set","key":"k","value":1} x"#,
        #"{"op":"set","key":"k","value":1"#,
        #"{"op":"set","key":"k","value":1,}"#, #"{}"#, "[]", "",
    ])
    func everyOtherFrameIsLeftToTheFullDecoder(_ frame: String) {
        #expect(quick(frame) == nil, "\(frame)")
    }

    @Test(arguments: [
        #"{"opx":"set","key":"k","value":1}"#, #"{"op":"set","ids":1,"key":"k","value":1}"#,
        #"{"op":"set","Key":"k","value":1}"#, #"{"op":"set","key":"k","values":1}"#,
        #"{"op":"set","key":"k","valu":1}"#, #"{"op":"set","key":"k","value":1,"id":7}"#,
    ])
    func onlyTheFourNamesAreRecognised(_ frame: String) {
        // The last: too few bytes after the name to compare it as a word; the full decoder reads it.
        #expect(quick(frame) == nil, "\(frame)")
    }

    @Test(arguments: ["loadgen.k.1234567 ", "loadgen\u{7F}", "loadgen.k.12345\u{7F}x", "a b", "abcdefghijklmnop q"])
    func keysWithASpaceOrDeleteAreLeftToTheKeyRules(_ key: String) {
        #expect(quick(#"{"op":"set","key":"\#(key)","value":1}"#) == nil, "\(key)")
    }

    @Test func aKeyByteThatIsNotPlainIsFoundWhereverItStands() {
        for offset in 0..<20 {
            for byte in [" ", "\u{7F}", "\u{E9}", "\\n", "\\\""] {
                var key = String(repeating: "k", count: 20)
                key.insert(contentsOf: byte, at: key.index(key.startIndex, offsetBy: offset))
                #expect(quick(#"{"op":"set","key":"\#(key)","value":1}"#) == nil, "\(key)")
            }
        }
    }

    @Test func aPlainKeyOfAnyLengthIsRead() throws {
        for length in 1...40 {
            let key = String(repeating: "k", count: length - 1) + "~"
            let request = try #require(quick(#"{"op":"set","key":"\#(key)","value":1}"#))
            #expect(request.operation == .set(key: key, value: EncodedJSON(1), ifVersion: nil))
        }
    }

    @Test(arguments: ["", "k", "loadgen.k.12345", "loadgen.k.123456", "caf\u{E9}", String(repeating: "x", count: 40)])
    func bytesMadeTextAreTheTextOfTheirUTF8(_ text: String) {
        Array(text.utf8).withUnsafeBufferPointer { #expect($0.text == text) }
    }

    @Test func bytesThatAreNotUTF8AreRepairedAsStringDecodingRepairsThem() {
        for bytes: [UInt8] in [[0x61, 0xFF, 0x62], [0xC3], Array(repeating: 0x80, count: 20)] {
            bytes.withUnsafeBufferPointer { buffer in
                #expect(buffer.text == String(decoding: bytes, as: UTF8.self))
            }
        }
    }

    @Test func aBatchOfSetsIsReadInOnePass() throws {
        let frame =
            #"{"op": "batch", "id": 3, "ops": [{"op": "set", "key": "k.1", "value": {"seq": 3, "pad": "xx"}}, "#
            + #"{"value": [1, {"a": 2}], "key": "k.2", "op": "set"}]}"#
        let request = try #require(quick(frame))
        let expected = try SetReaderReference.full(Array(frame.utf8), limits: .default).get()
        #expect(request == expected)
        #expect(request.kind == .batch)
        #expect(request.id == .integer(3))
        guard case .batch(let operations, nil) = request.operation, case .set(_, let first, _, _, _)? = operations.first
        else {
            Issue.record("not a batch of sets: \(request)")
            return
        }
        #expect(operations.map(\.key) == ["k.1", "k.2"])
        #expect(first.bytes == Array(#"{"seq": 3, "pad": "xx"}"#.utf8))
        #expect(first.namesAreUnique)
    }

    @Test(arguments: [
        #"{"op":"batch","ops":[]}"#,
        #"{"op":"batch","ops":[{"op":"set","key":"a","value":1},{"op":"set","key":"a","value":2}]}"#,
        #"{"op":"batch","ops":[{"op":"set","key":"a","value":1,"ifVersion":2}]}"#,
        #"{"op":"batch","ops":[{"op":"delete","key":"a"}]}"#, #"{"op":"batch","ops":[{"op":"set","key":"a"}]}"#,
        #"{"op":"batch","ops":[{"op":"set","key":"a","value":1}],"requestId":"r"}"#,
        #"{"op":"batch","ops":[{"op":"set","key":"a","value":1}],"key":"b"}"#,
        #"{"op":"batch","ops":[{"op":"set","op":"set","key":"a","value":1}]}"#,
        #"{"op":"batch","ops":[{"op":"set","key":"a","value":1}],"ops":[]}"#, #"{"op":"batch","ops":[1]}"#,
        #"{"op":"batch","ops":[{"op":"set","key":"a","value":1},]}"#, #"{"op":"batch"}"#,
        #"{"op":"set","key":"a","value":1,"ops":[{"op":"set","key":"a","value":1}]}"#,
    ])
    func otherBatchesAreLeftToTheFullDecoder(_ frame: String) {
        #expect(quick(frame) == nil, "\(frame)")
    }

    @Test func aBatchKeepsTheCountAndDepthLimits() {
        let set = #"{"op":"set","key":"k.\#(0)","value":1}"#
        let most = (0..<128).map { #"{"op":"set","key":"k.\#($0)","value":1}"# }.joined(separator: ",")
        #expect(quick(#"{"op":"batch","ops":[\#(most)]}"#) != nil)
        let twenty = (0..<20).map { #"{"op":"set","key":"k.\#($0 % 19)","value":1}"# }.joined(separator: ",")
        #expect(quick(#"{"op":"batch","ops":[\#(twenty)]}"#) == nil, "a key twice among more than 16")
        #expect(quick(#"{"op":"batch","ops":[\#(most),{"op":"set","key":"k.x","value":1}]}"#) == nil)
        #expect(quick(#"{"op":"batch","ops":[\#(set)]}"#, limits: RequestLimits(maxDepth: 3)) != nil)
        #expect(quick(#"{"op":"batch","ops":[\#(set)]}"#, limits: RequestLimits(maxDepth: 2)) == nil)
        #expect(
            quick(#"{"op":"batch","ops":[{"op":"set","key":"k","value":[1]}]}"#, limits: RequestLimits(maxDepth: 3))
                == nil)
    }

    @Test func randomBatchesGetTheFullDecodersAnswer() {
        var generator = SeededGenerator(seed: 28)
        var read = 0
        for round in 0..<1500 {
            let elements = (0..<Int.random(in: 1...3, using: &generator)).map { index in
                #"{"op":"set","key":"k.\#(index % 2 == 0 ? index : round)","value":\#(RandomJSON.text(using: &generator))}"#
            }
            var frame = Array(#"{"id":\#(round),"op":"batch","ops":[\#(elements.joined(separator: ","))]}"#.utf8)
            if round % 3 == 0 { RandomJSON.mutate(&frame, using: &generator) }
            let limits = RequestLimits(
                maxValueBytes: Int.random(in: 8...4096, using: &generator),
                maxDepth: Int.random(in: 2...7, using: &generator))
            guard let request = frame.withUnsafeBufferPointer({ QuickSetReader.request(in: $0, limits: limits) }) else {
                continue
            }
            read += 1
            #expect(
                SetReaderReference.full(frame, limits: limits) == .success(request),
                "\(String(decoding: frame, as: UTF8.self))")
        }
        #expect(read > 150)
    }

    @Test func theLimitsAreKept() {
        let frame = #"{"op":"set","key":"k","value":[[1]]}"#
        #expect(quick(frame, limits: RequestLimits(maxDepth: 3)) != nil)
        #expect(quick(frame, limits: RequestLimits(maxDepth: 2)) == nil)
        #expect(quick(#"{"op":"set","key":"k","value":"0123456789"}"#, limits: RequestLimits(maxValueBytes: 8)) == nil)
        #expect(quick(#"{"op":"set","key":"k","value":"01234"}"#, limits: RequestLimits(maxValueBytes: 8)) != nil)
    }

    @Test func randomSetFramesGetTheFullDecodersAnswer() {
        var generator = SeededGenerator(seed: 27)
        var read = 0
        for round in 0..<3000 {
            let value = RandomJSON.text(using: &generator)
            let id = ["", #""id":7,"#, #""id":"x","#, #""id":-12,"#][round % 4]
            var frame = Array(#"{"op":"set",\#(id)"key":"k.\#(round)","value":\#(value)}"#.utf8)
            if round % 3 == 0 { RandomJSON.mutate(&frame, using: &generator) }
            let limits = RequestLimits(
                maxValueBytes: Int.random(in: 8...4096, using: &generator),
                maxDepth: Int.random(in: 1...6, using: &generator))
            guard let request = frame.withUnsafeBufferPointer({ QuickSetReader.request(in: $0, limits: limits) }) else {
                continue
            }
            read += 1
            let expected = SetReaderReference.full(frame, limits: limits)
            #expect(expected == .success(request), "\(String(decoding: frame, as: UTF8.self))")
            #expect(
                SetReaderReference.valueBytes(request) == (try? expected.get()).flatMap(SetReaderReference.valueBytes))
        }
        #expect(read > 800)
    }
}
