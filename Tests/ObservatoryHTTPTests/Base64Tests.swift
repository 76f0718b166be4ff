import Testing

@testable import ObservatoryHTTP

@Suite struct Base64Tests {
    @Test func theRFC4648VectorsEncodeAndDecode() {
        let vectors = [
            "": "", "f": "Zg==", "fo": "Zm8=", "foo": "Zm9v", "foob": "Zm9vYg==", "fooba": "Zm9vYmE=",
            "foobar": "Zm9vYmFy",
        ]
        for (plain, encoded) in vectors {
            #expect(Base64.encode(bytes(plain)) == encoded)
            #expect(Base64.decode(encoded) == bytes(plain))
        }
    }

    @Test func malformedTextDoesNotDecode() {
        for text in ["Zg=", "Zg", "Z===", "Zm9v!A==", "Zg==Zg==", "=Zg=", "Zm=v"] {
            #expect(Base64.decode(text) == nil, "\(text)")
        }
    }
}
