/// A small deterministic generator (a 64-bit linear congruential step with the
/// high bits taken), so that a randomized test's failure names a seed that reproduces it.
struct Dice {
    private var state: UInt64

    init(seed: UInt64) {
        state = seed
    }

    mutating func below(_ bound: Int) -> Int {
        state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
        return Int((state >> 33) % UInt64(bound))
    }

    mutating func pick<Element>(_ elements: [Element]) -> Element {
        elements[below(elements.count)]
    }
}
