// Compaction: the slots of the items taken out of the queue are freed or dropped.
extension OutboundQueue {
    /// Frees the slots taken out once every item is sent, or drops the taken
    /// ones from the front once they are most of a long list.
    mutating func compactItems() {
        if head == items.count {
            // Nothing was queued as an item since the last compaction (replies and
            // events went straight into the write buffer): nothing to free (callgrind:
            // about 50 instructions a flush).
            if head == 0 && coalescingIndex == nil { return }
            if items.capacity <= 256 {
                // Every slot was taken (is nil). Popped one by one, here, where the
                // type is known, each costs about 35 instructions; `removeAll`
                // destroys them through type metadata, about 60 each.
                while items.popLast() != nil {}
            } else {
                items = []
            }
            head = 0
            coalescingIndex = nil
        } else if head > 1_024, head * 2 > items.count {
            items.removeFirst(head)
            if let index = coalescingIndex {
                coalescingIndex = index.mapValues { $0 - head }
            }
            head = 0
        }
    }
}
