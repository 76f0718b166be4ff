/// Any JSON value, decoded only to learn that a setting is present (the old
/// top-level `tokens`, which is reported with how to write it now).
struct JSONAny: Decodable {
    init(from decoder: any Decoder) throws {}
}
