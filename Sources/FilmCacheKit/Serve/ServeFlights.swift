import Logging
import Synchronization

/// Single flight for `filmcache serve`: one fetch of a film or query however many requests ask for
/// it at once, in this process and across the serve processes on one database.
///
/// In the process, the first request for a key leads a ``ServeFlight`` the others wait on. Across
/// processes, the leader holds the key in the database (a claim with a lease) while it fetches; a
/// process that finds the key held waits until it is let go and then reads the answer the other
/// stored, so OMDb (or TMDb) is asked once.
final class ServeFlights<Resolution: Sendable>: Sendable {
    private let store: any WorkClaims
    private let settings: ServeSettings
    private let time: TimeSource
    private let logger: Logger
    private let flights = Mutex<[String: ServeFlight<Resolution>]>([:])
    /// Who this process is among the serve processes holding flights on the database.
    private let holder = Int.random(in: Int.min..<0)

    /// Flights held in `store`, each waited for at most `settings.requestDeadline` on `time`'s clock.
    init(store: any WorkClaims, settings: ServeSettings, time: TimeSource, logger: Logger) {
        self.store = store
        self.settings = settings
        self.time = time
        self.logger = logger
    }

    /// Runs `fetch` once for every request asking `key` while it runs; each waits at most the
    /// request deadline (`nil` then).
    func fly(_ key: String, _ fetch: @escaping @Sendable () async -> Resolution) async -> Resolution? {
        let (flight, leads) = flights.withLock { flights -> (ServeFlight<Resolution>, Bool) in
            if let flight = flights[key] { return (flight, false) }
            let flight = ServeFlight<Resolution>()
            flights[key] = flight
            return (flight, true)
        }
        if leads {
            // The fetch outlives a request that stops waiting at its deadline: it stores its
            // answer for the next request, so it belongs to no request's task.
            Task { [self] in
                let resolution = await holdingFlight(key, fetch)
                // Stored before the flight ends, so a request after it finds the answer in the cache.
                flights.withLock { _ = $0.removeValue(forKey: key) }
                flight.finish(resolution)
            }
        }
        return await flight.wait(deadline: settings.requestDeadline, on: time.clock)
    }

    /// Runs `fetch` holding `key` among the serve processes on the database: while another holds
    /// it, waits until it lets go (its answer stored), its process is gone or its lease passes.
    /// `fetch` reads the cache first, so it finds what the other stored and asks OMDb for nothing.
    private func holdingFlight(
        _ key: String, _ fetch: @Sendable () async -> Resolution
    ) async -> Resolution {
        // A long query is held by its digest: a key stays short enough for any index.
        let claimKey = "serve:" + (key.utf8.count <= 200 ? key : SHA256.hex(Array(key.utf8)))
        var pause = Duration.milliseconds(10)
        while true {
            do {
                if try await store.claimFlight(claimKey, holder: holder, lease: settings.flightLease) { break }
            } catch {
                logger.warning(
                    "other serve processes could not be asked whether they fetch this; fetching",
                    metadata: ["error": "\(error)"])
                return await fetch()
            }
            try? await time.sleep(for: pause)
            pause = min(pause * 2, .milliseconds(200))
        }
        let resolution = await fetch()
        do {
            try await store.releaseFlight(claimKey, holder: holder)
        } catch {
            logger.warning("a flight could not be let go; it ends with its lease", metadata: ["error": "\(error)"])
        }
        return resolution
    }
}
