import Foundation
import Synchronization

/// Fresh answers held in memory, so the hit path of `filmcache serve` reads no database: a film's
/// body, a negative answer, an answer to `t=`/`s=`/`Season=`, each until the instant it stops being
/// fresh.
///
/// Bounded by the bytes of its bodies: past `capacity` the entries held longest go first, so memory
/// stays flat however many requests and films pass through.
final class AnswerMemo: Sendable {
    private struct Entry {
        var body: [UInt8]
        var freshUntil: Date
    }

    private struct State {
        var entries: [String: Entry] = [:]
        /// Keys in the order they were first held; `head` is the oldest still counted.
        var order: [String] = []
        var head = 0
        var bytes = 0
    }

    private let capacity: Int
    private let state = Mutex(State())

    /// A memo of at most `capacity` bytes of bodies (0: holds nothing).
    init(capacity: Int) {
        self.capacity = capacity
    }

    /// The body held for `key`, if it is still fresh at `now`.
    func fresh(_ key: String, at now: Date) -> [UInt8]? {
        state.withLock { state in
            guard let entry = state.entries[key], entry.freshUntil > now else { return nil }
            return entry.body
        }
    }

    /// Holds `body` for `key` until `freshUntil`; a body larger than the whole memo is not held.
    func put(_ key: String, _ body: [UInt8], freshUntil: Date) {
        let size = body.count + key.utf8.count
        guard size <= capacity else { return }
        state.withLock { state in
            if let old = state.entries.updateValue(Entry(body: body, freshUntil: freshUntil), forKey: key) {
                state.bytes += body.count - old.body.count
            } else {
                state.order.append(key)
                state.bytes += size
            }
            while state.bytes > capacity, state.head < state.order.count {
                let oldest = state.order[state.head]
                state.head += 1
                if let gone = state.entries.removeValue(forKey: oldest) {
                    state.bytes -= gone.body.count + oldest.utf8.count
                }
            }
            if state.head > 1_024, state.head * 2 > state.order.count {
                state.order.removeFirst(state.head)
                state.head = 0
            }
        }
    }

    /// Bytes of bodies and keys held.
    var bytes: Int { state.withLock { $0.bytes } }

    /// Entries held.
    var count: Int { state.withLock { $0.entries.count } }
}
