extension Collection<UInt8> {
    /// Calls `body` with the bytes in one buffer: in place when the collection
    /// is contiguous (`[UInt8]`, `ArraySlice`, buffer pointers), else copied first.
    func withContiguousBytes<Result>(_ body: (UnsafeBufferPointer<UInt8>) throws(JSONParseError) -> Result) throws(JSONParseError) -> Result {
        let inPlace = withContiguousStorageIfAvailable { buffer in
            Swift.Result { () throws(JSONParseError) in try body(buffer) }
        }
        if let inPlace {
            return try inPlace.get()
        }
        return try Array(self).withUnsafeBufferPointer { (buffer) throws(JSONParseError) in try body(buffer) }
    }
}
