extension StringProtocol {
    /// The text without leading and trailing spaces and horizontal tabs (HTTP's OWS).
    func trimmingSpacesAndTabs() -> SubSequence {
        let isWhitespace: (Character) -> Bool = { $0 == " " || $0 == "\t" }
        guard let first = firstIndex(where: { !isWhitespace($0) }),
            let last = lastIndex(where: { !isWhitespace($0) })
        else { return self[endIndex..<endIndex] }
        return self[first...last]
    }
}
