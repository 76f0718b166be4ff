import ObservatoryTestSupport
import Testing

@testable import ObservatoryJSON
@testable import ObservatoryWire

/// The compact reader of a `set` must answer as the full decoder does, byte for byte, or not at all.
@Suite struct CompactSetReaderTests {
    private func compact(_ frame: String, limits: RequestLimits = .default) -> Request<EncodedJSON>? {
        Array(frame.utf8).withUnsafeBufferPointer { CompactSetReader.request(in: $0, limits: limits) }
    }

    @Test(arguments: [
        #"{"op":"set","id":41,"key":"loadgen.k.77","value":{"seq":1,"ts":2,"pad":"xx"}}"#,
        #"{"id":41,"op":"set","key":"loadgen.k.77","value":{"seq":1,"ts":2,"pad":"xx"}}"#,
    ])
    func bothUsualOrdersAreReadInOnePass(_ frame: String) throws {
        let request = try #require(compact(frame))
        #expect(request.id == .integer(41))
        #expect(request.kind == .set)
        let value = EncodedJSON(["seq": 1, "ts": 2, "pad": "xx"])
        #expect(request.operation == .set(key: "loadgen.k.77", value: value, ifVersion: nil))
        #expect(SetReaderReference.valueBytes(request) == Array(#"{"seq":1,"ts":2,"pad":"xx"}"#.utf8))
        guard case .set(_, let sent, _, _, _, _) = request.operation else { return }
        #expect(sent.namesAreUnique)
    }

    @Test func whatTheClientLibrarySendsIsRead() throws {
        for id: RequestID? in [nil, .integer(7), .integer(-3), .integer(123_456_789_012)] {
            let sent = Request<JSONValue>(id: id, operation: .set(key: "k.1", value: ["a": [1, 2.5]], ifVersion: nil))
            let request = try #require(
                Array(sent.encoded()).withUnsafeBufferPointer {
                    CompactSetReader.request(in: $0, limits: .default)
                })
            #expect(request.decoded == sent)
            #expect(request.id == id)
        }
    }

    @Test(arguments: [
        #"{"op":"set","id":0,"key":"k","value":1}"#, #"{"op":"set","id":-12,"key":"k","value":1}"#,
        #"{"op":"set","id":1234567,"key":"k","value":1}"#, #"{"op":"set","id":12345678,"key":"k","value":1}"#,
        #"{"op":"set","id":123456789012345678,"key":"k","value":1}"#, #"{"id":9,"op":"set","key":"k","value":[]}"#,
        #"{"op":"set","key":"k","value":{"a":"\n"}}"#, #"{"op":"set","key":"k","value":{ "a" : 1 }}"#,
    ])
    func idsOfEveryLengthTheQuickReaderReadsAreReadToo(_ frame: String) throws {
        let request = try #require(compact(frame))
        let expected = try SetReaderReference.full(Array(frame.utf8), limits: .default).get()
        #expect(request == expected)
        #expect(request.id == expected.id)
        #expect(SetReaderReference.valueBytes(request) == SetReaderReference.valueBytes(expected))
    }

    @Test(arguments: [
        // Spaces between members, other orders, string ids, ids the full decoder reads, other members.
        #"{"op": "set","key":"k","value":1}"#, #"{"op":"set","key":"k","value": 1}"#,
        #"{"op":"set","key":"k","value":1 }"#, #"{"op":"set","key":"k","value":1} "#,
        #"{"key":"k","op":"set","value":1}"#, #"{"op":"set","value":1,"key":"k"}"#,
        #"{"op":"set","id":"a","key":"k","value":1}"#, #"{"op":"set","id":01,"key":"k","value":1}"#,
        #"{"op":"set","id":1.5,"key":"k","value":1}"#, #"{"op":"set","id":1e5,"key":"k","value":1}"#,
        #"{"op":"set","id":1E5,"key":"k","value":1}"#, #"{"id":1.0,"op":"set","key":"k","value":1}"#,
        #"{"op":"set","id":1234567890123456789,"key":"k","value":1}"#, #"{"op":"set","id":-,"key":"k","value":1}"#,
        #"{"op":"set","id":null,"key":"k","value":1}"#, #"{"op":"set","id":7 ,"key":"k","value":1}"#,
        #"{"op":"set","key":"k","value":1,"ttl":5}"#, #"{"op":"set","key":"k","ifVersion":1,"value":1}"#,
        #"{"op":"get","key":"k","value":1,"x":2}"#, #"{"op":"sets","key":"k","value":1}"#,
        // Keys and values that are not read here, and frames that are not JSON.
        #"{"op":"set","key":"","value":1000}"#, #"{"op":"set","key":"a b","value":1}"#,
        #"{"op":"set","key":"\u006b","value":1}"#, #"{"op":"set","key":"k","value":1e3}"#,
        #"{"op":"set","key":"k","value":"é"}"#, #"{"op":"set","key":"k","value":1}}"#,
        #"{"op":"set","key":"k","value":[1,]}"#, #"{"op":"set","key":"k","value":1"#,
        #"{"op":"set","key":"k","value":1]"#, #"{"op":"set","key":"k","value":}"#,
    ])
    func everyOtherSpellingIsLeftToTheOtherReaders(_ frame: String) {
        #expect(compact(frame) == nil, "\(frame)")
    }

    @Test func theLimitsAreKept() {
        let frame = #"{"op":"set","key":"k","value":[[1]]}"#
        #expect(compact(frame, limits: RequestLimits(maxDepth: 3)) != nil)
        #expect(compact(frame, limits: RequestLimits(maxDepth: 2)) == nil)
        #expect(compact(frame, limits: RequestLimits(maxDepth: 0)) == nil)
        let long = #"{"op":"set","key":"k","value":"0123456789abcdef"}"#
        #expect(compact(long, limits: RequestLimits(maxValueBytes: 16)) == nil)
        #expect(compact(long, limits: RequestLimits(maxValueBytes: 18)) != nil)
        let longKey = String(repeating: "k", count: KeyRules.maxBytes + 1)
        #expect(compact(#"{"op":"set","key":"\#(longKey)","value":1}"#) == nil)
        #expect(compact(#"{"op":"set","key":"\#(longKey.dropLast())","value":1}"#) != nil)
    }

    @Test func randomSetFramesGetTheFullDecodersAnswer() {
        var generator = SeededGenerator(seed: 36)
        var read = 0
        let ids = [
            "", "7", "-12", "0", "01", "-0", "1.5", "2e3", "12345678", "1234567", "123456789012345678",
            "1234567890123456789", "\"x\"", "99 ",
        ]
        for round in 0..<3000 {
            let value = RandomJSON.text(using: &generator)
            let id = ids[round % ids.count]
            let fields =
                id.isEmpty
                ? #""op":"set","# : round % 2 == 0 ? #""op":"set","id":\#(id),"# : #""id":\#(id),"op":"set","#
            var frame = Array(#"{\#(fields)"key":"k.\#(round)","value":\#(value)}"#.utf8)
            if round % 3 == 0 { RandomJSON.mutate(&frame, using: &generator) }
            let limits = RequestLimits(
                maxValueBytes: Int.random(in: 8...4096, using: &generator),
                maxDepth: Int.random(in: 1...6, using: &generator))
            guard let request = frame.withUnsafeBufferPointer({ CompactSetReader.request(in: $0, limits: limits) })
            else {
                continue
            }
            read += 1
            let text = String(decoding: frame, as: UTF8.self)
            let expected = SetReaderReference.full(frame, limits: limits)
            #expect(expected == .success(request), "\(text)")
            #expect(
                SetReaderReference.valueBytes(request) == (try? expected.get()).flatMap(SetReaderReference.valueBytes),
                "\(text)")
            let quick = frame.withUnsafeBufferPointer { QuickSetReader.request(in: $0, limits: limits) }
            #expect(quick == request, "the quick reader reads it too: \(text)")
        }
        #expect(read > 400)
    }
}
