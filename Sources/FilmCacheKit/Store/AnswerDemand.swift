/// The rule every backend applies to the counts ``AnswerCache/recordDemand(_:at:)`` is given.
package enum AnswerDemand {
    /// The counts that add something (one request or more), in ID order: concurrent writers then
    /// take the rows' locks in one order and never wait on each other in a circle.
    package static func counted(_ counts: [String: Int]) -> [(id: String, count: Int)] {
        counts.filter { $0.value > 0 }.sorted { $0.key < $1.key }.map { (id: $0.key, count: $0.value) }
    }
}

extension CachedAnswer {
    /// Of `answers`, the last to each query, in query order: what a batch leaves stored, with rows
    /// taken in one order by writers at once, which then never wait on each other in a circle.
    package static func lastOfEachQuery(_ answers: [CachedAnswer]) -> [CachedAnswer] {
        var last: [String: CachedAnswer] = [:]
        for answer in answers { last[answer.query] = answer }
        return last.values.sorted { $0.query < $1.query }
    }
}
