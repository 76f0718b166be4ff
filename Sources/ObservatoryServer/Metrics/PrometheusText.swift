/// Builds a page in Prometheus's text exposition format, version 0.0.4: for
/// each metric a `# HELP` and a `# TYPE` line, then its samples.
///
/// Label values and help texts are escaped as the format asks (a backslash,
/// a double quote in label values, a newline), so no value can break a line
/// or forge another sample. Served at `GET /metrics` as
/// `text/plain; version=0.0.4; charset=utf-8`.
///
///     var page = PrometheusText()
///     page.counter("observatory_changes_total", help: "Changes made.", value: 12)
///     page.gauge("observatory_connections", help: "Open connections.",
///                samples: [(["transport": "tcp"], 3), (["transport": "websocket"], 1)])
///     let body = page.text
struct PrometheusText {
    /// One sample: its labels, in the order given, and its value.
    typealias Sample = (labels: KeyValuePairs<String, String>, value: Double)

    /// The page so far.
    private(set) var text = ""

    /// The content type of the page.
    static let contentType = "text/plain; version=0.0.4; charset=utf-8"

    /// Adds a counter with one sample and no labels.
    mutating func counter(_ name: String, help: String, value: Double) {
        counter(name, help: help, samples: [([:], value)])
    }

    /// Adds a counter with a sample per label set.
    mutating func counter(_ name: String, help: String, samples: [Sample]) {
        family(name, type: "counter", help: help, samples: samples)
    }

    /// Adds a gauge with one sample and no labels.
    mutating func gauge(_ name: String, help: String, value: Double) {
        gauge(name, help: help, samples: [([:], value)])
    }

    /// Adds a gauge with a sample per label set.
    mutating func gauge(_ name: String, help: String, samples: [Sample]) {
        family(name, type: "gauge", help: help, samples: samples)
    }

    /// Adds a histogram: cumulative counts per upper bound (`le`, ending with
    /// `+Inf`, which is added when missing), the sum and the count.
    mutating func histogram(_ name: String, help: String, snapshot: Histogram.Snapshot) {
        header(name, type: "histogram", help: help)
        var cumulative: UInt64 = 0
        for (bound, count) in zip(snapshot.bounds, snapshot.counts) {
            cumulative += count
            sample("\(name)_bucket", labels: ["le": Self.format(bound)], value: Double(cumulative))
        }
        sample("\(name)_bucket", labels: ["le": "+Inf"], value: Double(snapshot.count))
        sample("\(name)_sum", labels: [:], value: snapshot.sum)
        sample("\(name)_count", labels: [:], value: Double(snapshot.count))
    }

    private mutating func family(_ name: String, type: String, help: String, samples: [Sample]) {
        header(name, type: type, help: help)
        for sample in samples { self.sample(name, labels: sample.labels, value: sample.value) }
    }

    private mutating func header(_ name: String, type: String, help: String) {
        text += "# HELP \(name) \(Self.escape(help, quotes: false))\n# TYPE \(name) \(type)\n"
    }

    private mutating func sample(_ name: String, labels: KeyValuePairs<String, String>, value: Double) {
        text += name
        if !labels.isEmpty {
            text += "{"
            text += labels.map { "\($0.key)=\"\(Self.escape($0.value, quotes: true))\"" }.joined(separator: ",")
            text += "}"
        }
        text += " \(Self.format(value))\n"
    }

    /// A number as the format spells it: whole numbers without a fraction,
    /// `+Inf`, `-Inf` and `NaN` by name.
    static func format(_ value: Double) -> String {
        if value.isNaN { return "NaN" }
        if value.isInfinite { return value > 0 ? "+Inf" : "-Inf" }
        if value == value.rounded(), abs(value) < 1e15 { return String(Int64(value)) }
        return "\(value)"
    }

    /// Escapes a backslash and a newline (and, in a label value, a double quote).
    static func escape(_ text: String, quotes: Bool) -> String {
        var escaped = ""
        escaped.reserveCapacity(text.utf8.count)
        for character in text.unicodeScalars {
            switch character {
            case "\\": escaped += "\\\\"
            case "\n": escaped += "\\n"
            case "\"" where quotes: escaped += "\\\""
            default: escaped.unicodeScalars.append(character)
            }
        }
        return escaped
    }
}
