import Dispatch

/// The one platform difference of the client's configuration: where updates
/// are delivered when the program names no queue.
///
/// On Apple platforms that is the main queue, so that UI code and `@MainActor`
/// models get their updates on the main actor without a setting, as Firebase's
/// callbacks do. Elsewhere it is nil (a serial queue of the client), since
/// programs there rarely run a main queue.
enum DeliveryDefaults {
    #if canImport(Darwin)
        /// The main queue: Apple platforms, where UI code lives.
        static var queue: DispatchQueue? { .main }
    #else
        /// None: the client's own serial queue.
        static var queue: DispatchQueue? { nil }
    #endif
}
