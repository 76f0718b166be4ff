/// A JSON number reduced to a canonical form, so that integers and doubles with the
/// same value compare and hash alike (`2 == 2.0`, `-0.0 == 0`).
///
/// Internal: ``JSONValue`` equality and hashing are built on it.
package enum JSONNumber: Hashable {
    /// A value that is exactly an Int64 (including whole doubles in range).
    case exact(Int64)
    /// Any other value; NaN is compared by identity so equality stays reflexive.
    case inexact(Double)

    package init?(_ value: JSONValue) {
        switch value {
        case .integer(let integer):
            self = .exact(integer)
        case .double(let double):
            if let integer = JSONNumber.exactInteger(double) {
                self = .exact(integer)
            } else {
                self = .inexact(double)
            }
        default:
            return nil
        }
    }

    package static func == (lhs: JSONNumber, rhs: JSONNumber) -> Bool {
        switch (lhs, rhs) {
        case (.exact(let left), .exact(let right)):
            return left == right
        case (.inexact(let left), .inexact(let right)):
            return left == right || (left.isNaN && right.isNaN)
        default:
            return false
        }
    }

    package func hash(into hasher: inout Hasher) {
        switch self {
        case .exact(let integer):
            hasher.combine(integer)
        case .inexact(let double):
            hasher.combine(double.isNaN ? Double.nan.bitPattern : double.bitPattern)
        }
    }

    /// The Int64 equal to `double`, if `double` is whole and in Int64's range.
    package static func exactInteger(_ double: Double) -> Int64? {
        // 2^63 is exactly representable; Int64's range is [-2^63, 2^63).
        guard double.isFinite, double == double.rounded(.towardZero),
            double >= -9_223_372_036_854_775_808.0, double < 9_223_372_036_854_775_808.0
        else { return nil }
        return Int64(double)
    }
}
