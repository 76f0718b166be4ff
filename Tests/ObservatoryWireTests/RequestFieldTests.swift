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
        let frame = #"{"op":"set","key":"k","value":{"a":1},"extra":true,"key":"j"}"#
        let object = try #require(try JSONValue.parse(Array(frame.utf8)).objectValue)
        let fromObject = RequestFields(object)
        let fromFrame = try Array(frame.utf8).withUnsafeBufferPointer { try RequestFields(parsing: $0, maxDepth: 8) }
        for field in RequestField.allCases {
            #expect(fromObject.value(of: field) == fromFrame.value(of: field))
        }
        #expect(fromFrame.value(of: .key) == "j")
        #expect(fromFrame.value(of: .ifVersion) == Optional.none, "absent, not null")
        #expect(fromFrame.nonObject == nil)
    }

    @Test func aFrameThatIsNoObjectKeepsItsValue() throws {
        let fields = try Array("[1,2]".utf8).withUnsafeBufferPointer { try RequestFields(parsing: $0, maxDepth: 8) }
        #expect(fields.nonObject == [1, 2])
        #expect(fields.value(of: .op) == Optional.none)
    }

    @Test func anOpIsFoundByItsNameExactlyAsByItsRawValue() {
        let names =
            OperationKind.allCases.map(\.rawValue) + [
                "", "s", "sex", "got", "gets", "pong", "lost", "Set", "hellO", "delete ", "observer", "unobserves",
                "observ", "ping\u{0}", "séte",
            ]
        for name in names {
            #expect(OperationKind.named(name) == OperationKind(rawValue: name), "\(name)")
        }
    }
}
