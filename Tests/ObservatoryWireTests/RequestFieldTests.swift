import Testing

@testable import ObservatoryWire

@Suite struct RequestFieldTests {
    @Test func everyFieldHasASlot() {
        #expect(RequestField.allCases.count == RequestFields.capacity)
        #expect(RequestField.allCases.map(\.rawValue) == Array(0..<RequestFields.capacity))
    }

    @Test(arguments: RequestField.allCases)
    func everyFieldIsFoundByItsName(_ field: RequestField) {
        var name = field.name
        #expect(name.withUTF8 { RequestField(name: $0) } == field)
    }

    @Test(arguments: ["", "i", "ids", "OP", "protocolVersion", "fromRevisions", "a-name-longer-than-sixteen-bytes"])
    func otherNamesAreNoField(_ name: String) {
        var name = name
        #expect(name.withUTF8 { RequestField(name: $0) } == nil)
    }

    @Test func fieldsOfAParsedObjectAreReadAsFromAFrame() throws {
        let frame = #"{"op":"set","key":"k","value":{"a":1},"extra":true,"key":"j","id":7,"name":"é\u0041"}"#
        let object = try #require(try JSONValue.parse(Array(frame.utf8)).objectValue)
        let fromObject = RequestFields(object)
        try Array(frame.utf8).withUnsafeBufferPointer { bytes in
            let fromFrame = try RequestFields(parsing: bytes, maxDepth: 8)
            // A frame's `value` is kept as its bytes, and made as the representation asks.
            for field in RequestField.allCases where field != .value {
                #expect(fromObject.value(of: field) == fromFrame.value(of: field))
            }
            let valueFromFrame: JSONValue? = fromFrame.sentValue()
            let valueFromObject: JSONValue? = fromObject.sentValue()
            #expect(valueFromFrame == ["a": 1])
            #expect(valueFromObject == valueFromFrame)
            let bytesFromFrame: EncodedJSON? = fromFrame.sentValue()
            #expect(bytesFromFrame?.bytes == Array(#"{"a":1}"#.utf8))
            #expect(fromFrame.value(of: .key) == "j")
            #expect(fromFrame.value(of: .name) == "éA")
            #expect(fromFrame.value(of: .ifVersion) == Optional.none, "absent, not null")
            #expect(fromFrame.nonObject == nil)
        }
    }

    @Test(arguments: [
        (#"{"id":1,"id":"x"}"#, JSONValue.string("x")),
        (#"{"id":"x","id":2}"#, .integer(2)),
        (#"{"id":"x","id":2.5}"#, .double(2.5)),
        (#"{"id":[1],"id":"x"}"#, .string("x")),
        (#"{"id":"x","id":[1]}"#, .array([1])),
        (#"{"id":"a\"b","id":"c"}"#, .string("c")),
        (#"{"id":"c","id":"a\"b"}"#, .string("a\"b")),
    ])
    func aRepeatedFieldKeepsItsLastValueWhateverItsKind(frame: String, last: JSONValue) throws {
        try Array(frame.utf8).withUnsafeBufferPointer { bytes in
            let fields = try RequestFields(parsing: bytes, maxDepth: 8)
            #expect(fields.value(of: .id) == last)
        }
    }

    @Test func scalarsAndPlainStringsReadFromTheirBytesEqualTheirTrees() throws {
        let frame =
            #"{"id":-12,"ifVersion":2.0,"ephemeral":true,"limit":null,"fromRevision":2000000000000000000,"epoch":-2000000000000000000,"key":"a.b","prefix":"é","after":"x\u0041"}"#
        let object = try #require(try JSONValue.parse(Array(frame.utf8)).objectValue)
        try Array(frame.utf8).withUnsafeBufferPointer { bytes in
            let fields = try RequestFields(parsing: bytes, maxDepth: 8)
            for field in RequestField.allCases {
                #expect(fields.value(of: field) == object[field.name], "\(field)")
            }
            #expect(fields.value(of: .id) == .integer(-12))
            #expect(fields.value(of: .limit) == .null, "present as null")
            #expect(fields.value(of: .fromRevision) == .integer(2_000_000_000_000_000_000), "beyond 60 bits")
            #expect(fields.value(of: .epoch) == .integer(-2_000_000_000_000_000_000))
            #expect(fields.plainString(.key).map { Array($0) } == Array("a.b".utf8))
            #expect(fields.plainString(.prefix) == nil, "not ASCII: a tree")
            #expect(fields.plainString(.id) == nil)
        }
    }

    @Test func aFrameThatIsNoObjectKeepsItsValue() throws {
        try Array("[1,2]".utf8).withUnsafeBufferPointer { bytes in
            let fields = try RequestFields(parsing: bytes, maxDepth: 8)
            #expect(fields.nonObject == [1, 2])
            #expect(fields.value(of: .op) == Optional.none)
        }
    }

    @Test func anOpIsFoundByItsNameExactlyAsByItsRawValue() {
        let names =
            OperationKind.allCases.map(\.rawValue) + [
                "", "s", "sex", "got", "gets", "pong", "lost", "Set", "hellO", "delete ", "observer", "unobserves",
                "observ", "ping\u{0}", "séte", "batch ", "bello", "hatch",
            ]
        for name in names {
            #expect(OperationKind.named(name) == OperationKind(rawValue: name), "\(name)")
            var bytes = name
            #expect(bytes.withUTF8 { OperationKind.named($0) } == OperationKind(rawValue: name), "\(name) as bytes")
        }
    }
}
