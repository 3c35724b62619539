import FilmCacheKit
import Foundation
import Metrics
import Prometheus
import Synchronization

/// `filmcache serve`'s metrics, kept with swift-metrics in a Prometheus registry of their own and
/// shown at `/metrics`: requests by outcome, their latency, OMDb calls by answer, the quota; and
/// apart, TMDb's requests by outcome and TMDb calls by answer.
///
/// Labels carry outcomes and statuses only: never a token, a key or a query.
public final class ServeMetrics: Sendable {
    private let registry: PrometheusCollectorRegistry
    private let requests: [ServeResponse.Outcome: Metrics.Counter]
    private let latency: Metrics.Timer
    private let upstream = Mutex<[String: Metrics.Counter]>([:])
    private let factory: PrometheusMetricsFactory
    private let quotaUsed: Metrics.Gauge
    private let quotaLimit: Metrics.Gauge
    private let quotaLeft: Metrics.Gauge
    private let quotaReset: Metrics.Gauge
    private let tmdbRequests: [ServeResponse.Outcome: Metrics.Counter]
    private let tmdbUpstream = Mutex<[String: Metrics.Counter]>([:])
    /// Requests by outcome, also kept here for the dashboard's hit ratio.
    private let tallies = Mutex<[ServeResponse.Outcome: Int]>([:])

    public init() {
        registry = PrometheusCollectorRegistry()
        var factory = PrometheusMetricsFactory(registry: registry)
        factory.defaultDurationHistogramBuckets = [
            .microseconds(100), .microseconds(250), .microseconds(500), .milliseconds(1), .milliseconds(2),
            .milliseconds(5), .milliseconds(10), .milliseconds(25), .milliseconds(50), .milliseconds(100),
            .milliseconds(250), .milliseconds(500), .seconds(1), .seconds(2), .seconds(5), .seconds(10),
        ]
        self.factory = factory
        var requests: [ServeResponse.Outcome: Metrics.Counter] = [:]
        for outcome in ServeResponse.Outcome.allCases {
            requests[outcome] = Metrics.Counter(
                label: "filmcache_serve_requests_total", dimensions: [("outcome", outcome.rawValue)], factory: factory)
        }
        self.requests = requests
        var tmdbRequests: [ServeResponse.Outcome: Metrics.Counter] = [:]
        for outcome in ServeResponse.Outcome.allCases {
            tmdbRequests[outcome] = Metrics.Counter(
                label: "filmcache_serve_tmdb_requests_total", dimensions: [("outcome", outcome.rawValue)],
                factory: factory)
        }
        self.tmdbRequests = tmdbRequests
        latency = Metrics.Timer(label: "filmcache_serve_request_duration_seconds", factory: factory)
        quotaUsed = Metrics.Gauge(label: "filmcache_serve_quota_used_calls", factory: factory)
        quotaLimit = Metrics.Gauge(label: "filmcache_serve_quota_limit_calls", factory: factory)
        quotaLeft = Metrics.Gauge(label: "filmcache_serve_quota_left_calls", factory: factory)
        quotaReset = Metrics.Gauge(label: "filmcache_serve_quota_next_reset_timestamp_seconds", factory: factory)
    }

    /// Counts one answered OMDb request and how long it took.
    public func record(_ outcome: ServeResponse.Outcome, after duration: Duration) {
        count(outcome)
        latency.recordNanoseconds(duration.inNanoseconds)
    }

    /// Counts one request by outcome.
    public func count(_ outcome: ServeResponse.Outcome) {
        requests[outcome]?.increment()
        tallies.withLock { $0[outcome, default: 0] += 1 }
    }

    /// Counts one answered TMDb request (a path under `/3/`) and how long it took.
    public func recordTMDb(_ outcome: ServeResponse.Outcome, after duration: Duration) {
        tmdbRequests[outcome]?.increment()
        latency.recordNanoseconds(duration.inNanoseconds)
    }

    /// Counts one call to TMDb by how it was answered (`200`, `404`, `429`, `transport`).
    package func tmdbUpstreamCall(_ answer: String) {
        let counter = tmdbUpstream.withLock { counters in
            if let counter = counters[answer] { return counter }
            let counter = Metrics.Counter(
                label: "filmcache_serve_tmdb_upstream_calls_total", dimensions: [("answer", answer)],
                factory: factory)
            counters[answer] = counter
            return counter
        }
        counter.increment()
    }

    /// Requests by outcome since the start.
    public var outcomes: [ServeResponse.Outcome: Int] { tallies.withLock { $0 } }

    /// Counts one call to OMDb by how it was answered (`200`, `401`, `503`, `transport`).
    package func upstreamCall(_ answer: String) {
        let counter = upstream.withLock { counters in
            if let counter = counters[answer] { return counter }
            let counter = Metrics.Counter(
                label: "filmcache_serve_upstream_calls_total", dimensions: [("answer", answer)], factory: factory)
            counters[answer] = counter
            return counter
        }
        counter.increment()
    }

    /// Sets the quota gauges from the ledger.
    func updateQuota(from pages: ServePages) async {
        guard let status = await pages.quotaStatus() else { return }
        quotaUsed.record(status.used)
        quotaLimit.record(status.budget.limit)
        quotaLeft.record(status.left)
        quotaReset.record(status.nextReset.timeIntervalSince1970)
    }

    /// The Prometheus text exposition of every metric.
    public func exposition() -> [UInt8] {
        var buffer: [UInt8] = []
        registry.emit(into: &buffer)
        return buffer
    }
}

/// A transport that counts each call in the metrics by its answer.
public struct CountingTransport: HTTPTransport {
    let base: any HTTPTransport
    let metrics: ServeMetrics

    public init(_ base: any HTTPTransport, metrics: ServeMetrics) {
        self.base = base
        self.metrics = metrics
    }

    public func get(_ url: String) async throws(TransportFailure) -> HTTPResponse {
        do {
            let response = try await base.get(url)
            metrics.upstreamCall("\(response.status)")
            return response
        } catch {
            metrics.upstreamCall("transport")
            throw error
        }
    }
}

/// A transport that counts each TMDb call in the metrics by its answer.
public struct TMDbCountingTransport: HTTPRequestTransport {
    let base: any HTTPRequestTransport
    let metrics: ServeMetrics

    public init(_ base: any HTTPRequestTransport, metrics: ServeMetrics) {
        self.base = base
        self.metrics = metrics
    }

    public func send(_ request: HTTPRequest) async throws(TransportFailure) -> HTTPResponse {
        do {
            let response = try await base.send(request)
            metrics.tmdbUpstreamCall("\(response.status)")
            return response
        } catch {
            metrics.tmdbUpstreamCall("transport")
            throw error
        }
    }

    public func get(_ url: String) async throws(TransportFailure) -> HTTPResponse {
        try await send(HTTPRequest(url: url))
    }
}
