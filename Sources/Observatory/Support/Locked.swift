import ObservatoryLocking

/// A value behind a lock: read and change it from any thread (see
/// `ObservatoryLocking.Locked`).
///
/// The type lives in a module of its own that imports nothing of ours, so that
/// the logger and the etcd client can share it without importing this library;
/// this name keeps `import Observatory` enough for programs that use it.
public typealias Locked<Value> = ObservatoryLocking.Locked<Value>
