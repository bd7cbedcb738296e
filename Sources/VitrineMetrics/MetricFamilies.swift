import Prometheus

/// Figures written into swift-prometheus's registry at scrape time, as the exposition
/// text (0.0.4) of `MetricsServer`'s answers: the daemon's and the fleet bridge's.
///
/// ```swift
/// let families = MetricFamilies()
/// families.counter("frames_presented_total", "Frames presented on all outputs.", frames)
/// families.gauge("output_powered", "1 while the output shows frames.", 1, [("output", "HDMI-A-1")])
/// answer(families.text())
/// ```
///
/// Each call sets the series to the value given (counters are reset and raised to it): the
/// registry holds what the last scrape saw, never sums of its own.
public final class MetricFamilies {
    /// The registry the families live in.
    public let registry = PrometheusCollectorRegistry()
    /// The prefix of every name (`vitrine_…`).
    public let namespace: String

    /// Families named `namespace_…`.
    public init(namespace: String = "vitrine") { self.namespace = namespace }

    /// Sets gauge `name` (with `labels`) to `value`.
    public func gauge(_ name: String, _ help: String, _ value: Double, _ labels: [(String, String)] = []) {
        registry.makeGauge(descriptor: descriptor(name, help), labels: labels).set(value)
    }

    /// Sets counter `name` (with `labels`) to `value`.
    public func counter(_ name: String, _ help: String, _ value: Int, _ labels: [(String, String)] = []) {
        let counter = registry.makeCounter(descriptor: descriptor(name, help), labels: labels)
        counter.reset()
        counter.increment(by: Int64(value))
    }

    /// Sets counter `name` (with `labels`) to `value`, a fractional count (seconds).
    public func counter(_ name: String, _ help: String, _ value: Double, _ labels: [(String, String)] = []) {
        let counter = registry.makeCounter(descriptor: descriptor(name, help), labels: labels)
        counter.reset()
        if value > 0 { counter.increment(by: value) }
    }

    /// The exposition text of every family set so far.
    public func text() -> [UInt8] { registry.emitToBuffer() }

    private func descriptor(_ name: String, _ help: String) -> MetricNameDescriptor {
        MetricNameDescriptor(namespace: namespace, metricName: name, unitName: "", helpText: help)
    }
}
