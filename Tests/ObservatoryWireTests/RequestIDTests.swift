import ObservatoryWire
import Testing

@Suite struct RequestIDTests {
    @Test func idsDescribeThemselvesAsJSON() {
        #expect(RequestID.integer(-3).description == "-3")
        #expect(RequestID.string("a\"b").description == #""a\"b""#)
    }
}
