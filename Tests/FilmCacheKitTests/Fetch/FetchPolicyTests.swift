import Testing

/// Groups the fetch-policy suites so `swift test --filter Fetch` runs them all.
@Suite("Fetch policy")
enum FetchPolicyTests {}
