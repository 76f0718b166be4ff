/// What `ComparisonTable` needs of a scenario to print its rows: the server suite's
/// scenarios and the cluster suite's are both tables of the same shape.
protocol TableScenario {
    /// The name the suite's options take; also the key of its results.
    var name: String { get }
    /// The row's title.
    var title: String { get }
    /// What the row's figure counts, which also says how to print it.
    var unit: ServerScenario.Unit { get }
    /// The title of a second row with the server's CPU time per delivery, for
    /// scenarios that measure it; nil for none.
    var cpuPerDeliveryTitle: String? { get }
}
