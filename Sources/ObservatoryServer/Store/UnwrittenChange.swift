import Observatory
import ObservatoryWire

/// A change the store applied in memory whose records wait in storage's buffer
/// for the end of the loop turn: announced once they are written, taken back
/// (the key gets `previous` again) if that write fails.
struct UnwrittenChange {
    /// The change, announced once written.
    let change: StoreChange
    /// Who made it, for the announcement.
    let author: Author
    /// The key's entry before the change, `nil` if the change created the key.
    let previous: RawValueEntry?
}
