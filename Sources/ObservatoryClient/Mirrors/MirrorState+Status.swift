extension MirrorState {
    /// The author of the server's value as last seen; nil before the first
    /// snapshot and while the value does not decode.
    var serverAuthor: Author? {
        switch server {
        case .value(_, let author), .absent(let author): return author
        case .unknown, .undecodable: return nil
        }
    }
}
