import FilmCacheKit
import Foundation
import Logging

/// What `filmcache serve` shows beside OMDb's answers: `/healthz`, `/quota` and the dashboard,
/// read from the cache when asked.
public struct ServePages: Sendable {
    let store: any DashboardStore
    let configuration: WarmConfiguration
    let metrics: ServeMetrics
    let now: @Sendable () -> Date
    let logger: Logger

    public init(
        store: any DashboardStore, configuration: WarmConfiguration, metrics: ServeMetrics,
        now: @escaping @Sendable () -> Date, logger: Logger
    ) {
        self.store = store
        self.configuration = configuration
        self.metrics = metrics
        self.now = now
        self.logger = logger
    }

    /// The key's quota today, as `filmcache quota` reads it; `nil` when the cache cannot be read.
    func quotaStatus() async -> QuotaStatus? {
        do {
            return try await QuotaStatus.load(
                store: store, keyFingerprint: configuration.apiKey.fingerprint, settings: configuration.planSettings,
                dailyLimit: configuration.dailyLimit, now: now())
        } catch {
            logger.error("the quota ledger could not be read", metadata: ["error": "\(error)"])
            return nil
        }
    }

    /// `quota --json`'s form.
    func quotaJSON() async -> String? {
        await quotaStatus().map(QuotaReport.json)
    }

    /// Whether the cache answers: `{"status":"ok","films":N}` or the failure, never a secret.
    func health() async -> (ok: Bool, json: String) {
        do {
            let films = try await store.filmCount()
            return (true, #"{"status":"ok","films":\#(films)}"#)
        } catch {
            return (false, #"{"status":"unavailable","error":"the cache database cannot be read"}"#)
        }
    }

    /// The dashboard: today's quota, the last 30 days' calls, the hit ratio, the most requested
    /// films and the cache's freshness, in one page with no external assets.
    func dashboard() async -> String {
        let status = await quotaStatus()
        let top = (try? await store.mostRequested(limit: 10)) ?? []
        let census = try? await store.census(freshness: configuration.freshness, now: now())
        let outcomes = metrics.outcomes
        return DashboardPage(status: status, top: top, census: census, outcomes: outcomes, now: now()).html
    }
}

/// The dashboard's HTML, rendered on the server.
struct DashboardPage {
    let status: QuotaStatus?
    let top: [DemandEntry]
    let census: CacheCensus?
    let outcomes: [ServeResponse.Outcome: Int]
    let now: Date

    var html: String {
        """
        <!DOCTYPE html>
        <html lang="en"><head><meta charset="utf-8"><title>filmcache serve</title>
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <style>
        body{font:15px/1.4 system-ui,sans-serif;margin:2rem;color:#222;max-width:60rem}
        h1{font-size:1.4rem}h2{font-size:1.1rem;margin-top:2rem}
        .tiles{display:flex;gap:1rem;flex-wrap:wrap}.tile{border:1px solid #ccc;border-radius:6px;padding:.6rem 1rem}
        .tile b{display:block;font-size:1.5rem}table{border-collapse:collapse}td,th{padding:.2rem .8rem;text-align:left}
        td.n{text-align:right}svg rect{fill:#4a7bd0}svg rect.out{fill:#c44}
        </style></head><body>
        <h1>filmcache serve</h1>
        \(quotaSection)
        \(usageSection)
        \(hitSection)
        \(topSection)
        \(freshnessSection)
        </body></html>

        """
    }

    private var quotaSection: String {
        guard let status else {
            return #"<section id="quota"><h2>Today's quota</h2><p>The ledger cannot be read.</p></section>"#
        }
        return """
            <section id="quota"><h2>Today's quota (\(Self.escape(status.today.key)))</h2><div class="tiles">
            <div class="tile">used<b id="quota-used">\(status.used)</b></div>
            <div class="tile">left<b id="quota-left">\(status.left)</b></div>
            <div class="tile">daily limit<b id="quota-limit">\(status.budget.limit)</b></div>
            <div class="tile">resets in<b id="quota-reset">\(DurationText.compact(.seconds(max(0, Int(status.nextReset.timeIntervalSince(now))))))</b></div>
            </div></section>
            """
    }

    private var usageSection: String {
        let days = status?.history ?? []
        let most = max(1, days.map(\.used).max() ?? 1)
        let width = 20
        var bars = ""
        for (index, day) in days.enumerated() {
            let height = Int((Double(day.used) / Double(most) * 100).rounded())
            let spent = day.exhaustedAt != nil ? #" class="out""# : ""
            bars +=
                #"<rect x="\#(index * width)" y="\#(100 - height)" width="\#(width - 4)" height="\#(height)"\#(spent)"#
                + #" data-day="\#(Self.escape(day.day))" data-used="\#(day.used)"><title>\#(Self.escape(day.day)): \#(day.used) calls</title></rect>"#
        }
        return """
            <section id="usage"><h2>Calls to OMDb, last \(days.count) days</h2>
            <svg id="usage-chart" width="\(max(1, days.count) * width)" height="100" role="img" aria-label="calls per day">\(bars)</svg>
            </section>
            """
    }

    private var hitSection: String {
        let hits = outcomes[.hit, default: 0]
        let answered = hits + outcomes[.miss, default: 0] + outcomes[.stale, default: 0] + outcomes[.error, default: 0]
        let ratio = answered == 0 ? "–" : String(format: "%.1f%%", Double(hits) / Double(answered) * 100)
        let cells = ServeResponse.Outcome.allCases.map { outcome in
            #"<div class="tile">\#(outcome.rawValue)<b id="requests-\#(outcome.rawValue)">\#(outcomes[outcome, default: 0])</b></div>"#
        }.joined()
        return """
            <section id="hits"><h2>Requests since start</h2><div class="tiles">
            <div class="tile">hit ratio<b id="hit-ratio">\(ratio)</b></div>\(cells)</div></section>
            """
    }

    private var topSection: String {
        let rows = top.map { entry in
            "<tr><td>\(Self.escape(entry.imdbID))</td><td>\(Self.escape(entry.title ?? "–"))</td>"
                + #"<td class="n">\#(entry.requests)</td></tr>"#
        }.joined()
        return """
            <section id="top"><h2>Most requested films</h2>
            <table id="top-films"><tr><th>imdbID</th><th>title</th><th>requests</th></tr>\(rows)</table></section>
            """
    }

    private var freshnessSection: String {
        guard let census else {
            return #"<section id="freshness"><h2>Cache freshness</h2><p>The cache cannot be read.</p></section>"#
        }
        return """
            <section id="freshness"><h2>Cache freshness</h2><div class="tiles">
            <div class="tile">films<b id="films">\(census.films)</b></div>
            <div class="tile">fresh<b id="films-fresh">\(census.fresh)</b></div>
            <div class="tile">stale<b id="films-stale">\(census.stale)</b></div>
            <div class="tile">not found<b id="not-found">\(census.notFound)</b></div>
            </div></section>
            """
    }

    static func escape(_ text: String) -> String { MarkupText.escaped(text) }
}
