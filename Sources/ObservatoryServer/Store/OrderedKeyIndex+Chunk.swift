extension OrderedKeyIndex {
    /// One sorted run of an index's slots, in storage of its own.
    ///
    /// A chunk is changed only through an index that holds the one reference to
    /// it (`isKnownUniquelyReferenced`); an index that shares it (with a copy a
    /// reader took) replaces it with a `copy()` first, as `Array` does. So a
    /// shared chunk is never written, which makes it safe to read from any
    /// thread (hence `@unchecked Sendable`).
    ///
    /// The slots sit in the middle of their storage (`first..<first + count`),
    /// with room on both sides, so that an insert or a remove moves the shorter
    /// side: on average a quarter of the slots instead of half. The storage holds
    /// `capacity` slots, where `capacity` is at least the index's most slots in a
    /// chunk plus one (the insert that splits it), so the slots always fit with
    /// the move toward either side with room. A split moves half the slots into a
    /// new chunk without retaining or releasing their keys.
    final class Chunk: @unchecked Sendable {
        private let storage: UnsafeMutablePointer<Slot>
        private let capacity: Int
        /// The storage index of the first slot.
        private var first: Int
        /// The number of slots held.
        private(set) var count: Int

        /// An empty chunk with room for `capacity` slots, whose first slot will go at `first`.
        private init(capacity: Int, first: Int) {
            storage = .allocate(capacity: capacity)
            self.capacity = capacity
            self.first = first
            count = 0
        }

        /// A chunk holding `slots` in the middle of room for `capacity` (more than `slots.count`).
        static func make(_ slots: some Collection<Slot>, capacity: Int) -> Chunk {
            let chunk = Chunk(capacity: capacity, first: (capacity - slots.count) / 2)
            // Storage indices first..<first + slots.count, below capacity.
            for slot in slots {
                (chunk.storage + chunk.first + chunk.count).initialize(to: slot)
                chunk.count += 1
            }
            return chunk
        }

        deinit {
            (storage + first).deinitialize(count: count)
            storage.deallocate()
        }

        /// The prefix of the first key; the chunk must not be empty.
        var headPrefix: KeyPrefix {
            storage[first].prefix
        }

        /// The first key; the chunk must not be empty.
        var headKey: String {
            storage[first].key
        }

        /// Calls `body` with the slots held, in order.
        func withSlots<Result>(_ body: (UnsafeBufferPointer<Slot>) -> Result) -> Result {
            body(UnsafeBufferPointer(start: storage + first, count: count))
        }

        /// A chunk holding the same slots (their keys retained), with the same room.
        func copy() -> Chunk {
            withSlots { Chunk.make($0, capacity: capacity) }
        }

        /// Inserts `slot` where its key belongs and returns its position: one
        /// search, then the slots on the shorter side moved out by one. The chunk
        /// must hold fewer than `capacity - 1` slots.
        func insert(_ slot: Slot) -> Int {
            let base = storage + first
            let position = OrderedKeyIndex.position(
                of: slot.key, prefix: slot.prefix, in: UnsafeBufferPointer(start: base, count: count))
            // With `count < capacity - 1` there is room on at least one side; the
            // front is used when it has room and its side is the shorter one or the
            // back has none.
            let roomAtBack = first + count < capacity
            if first > 0 && (position < count - position || !roomAtBack) {
                (base - 1).moveInitialize(from: base, count: position)
                first -= 1
            } else {
                (base + position + 1).moveInitialize(from: base + position, count: count - position)
            }
            (storage + first + position).initialize(to: slot)
            count += 1
            return position
        }

        /// Removes the slot of `key` (whose prefix is `prefix`) and returns its
        /// position, or `nil` when the key is not here.
        func remove(_ key: String, prefix: KeyPrefix) -> Int? {
            let base = storage + first
            let position = OrderedKeyIndex.position(
                of: key, prefix: prefix, in: UnsafeBufferPointer(start: base, count: count))
            guard position < count, StoreKey.sameBytes(base[position].key, key) else { return nil }
            (base + position).deinitialize(count: 1)
            // The shorter side closes the gap, within the slots held.
            if position < count - 1 - position {
                (base + 1).moveInitialize(from: base, count: position)
                first += 1
            } else {
                (base + position).moveInitialize(from: base + position + 1, count: count - 1 - position)
            }
            count -= 1
            return position
        }

        /// Moves the slots from position `start` on into a new chunk with the
        /// same room, keeping the first `start` here.
        func moveOut(from start: Int) -> Chunk {
            let moving = count - start
            let upper = Chunk(capacity: capacity, first: (capacity - moving) / 2)
            // Storage indices upper.first..<upper.first + moving, below capacity.
            (upper.storage + upper.first).moveInitialize(from: storage + first + start, count: moving)
            upper.count = moving
            count = start
            return upper
        }
    }
}
