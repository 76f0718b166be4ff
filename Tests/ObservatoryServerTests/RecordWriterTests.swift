import ObservatoryWire
import Testing

@testable import ObservatoryServer

/// `RecordWriter` sizes and writes the primitives exactly as `RecordEncoding`
/// appends them, so a record written through it reads back as one encoded the old way.
@Suite struct RecordWriterTests {
    private static let unsigned: [UInt64] = [0, 1, 127, 128, 16_383, 16_384, 1 << 35, 1 << 63 - 1, .max]
    private static let integers: [Int64] = [0, 1, -1, 63, -64, 64, -65, 1_700_000_000_000, .min, .max]

    @Test func everySizeIsTheCountOfBytesRecordEncodingWrites() {
        for value in Self.unsigned {
            var bytes: [UInt8] = []
            RecordEncoding.writeUnsigned(value, into: &bytes)
            #expect(RecordWriter.unsignedBytes(value) == bytes.count, "\(value)")
        }
        for value in Self.integers {
            var bytes: [UInt8] = []
            RecordEncoding.write(value, into: &bytes)
            #expect(RecordWriter.integerBytes(value) == bytes.count, "\(value)")
        }
        for count in [0, 5, 127, 128, 20_000] {
            #expect(RecordWriter.fieldBytes(count) == RecordWriter.unsignedBytes(UInt64(count)) + count)
        }
    }

    @Test func aWriterWritesTheBytesRecordEncodingAppends() {
        let texts = ["", "loadgen.k.42", "ünïcødé 😀", String(repeating: "x", count: 300)]
        let value: EncodedJSON = ["rgb": [0, 0.5, 1], "name": "sky"]
        var expected: [UInt8] = [9]
        var size = 1
        for number in Self.integers {
            RecordEncoding.write(number, into: &expected)
            size += RecordWriter.integerBytes(number)
        }
        for text in texts {
            RecordEncoding.write(text, into: &expected)
            size += RecordWriter.fieldBytes(text.utf8.count)
        }
        RecordEncoding.write(value, into: &expected)
        size += RecordWriter.fieldBytes(value.bytes.count)
        #expect(size == expected.count)

        var written = [UInt8](repeating: 0xEE, count: size)
        let full = written.withUnsafeMutableBytes { space in
            var writer = RecordWriter(space)
            writer.byte(9)
            for number in Self.integers { writer.integer(number) }
            for text in texts { writer.field(text) }
            writer.field(value)
            return writer.isFull
        }
        #expect(full)
        #expect(written == expected)
    }
}
