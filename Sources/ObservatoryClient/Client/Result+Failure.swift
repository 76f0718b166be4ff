extension Result {
    /// Whether this is a failure, for replies whose outcome decides how an error is reported.
    var isFailure: Bool {
        if case .failure = self { return true }
        return false
    }
}
