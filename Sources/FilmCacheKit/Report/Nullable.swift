/// An optional report field that JSON writes as `null` when absent, instead of leaving the key out.
///
/// Synthesized `Encodable` skips `nil` optionals; readers of `--json` (jq, dashboards) find a
/// key that is always there easier to handle than one that comes and goes.
@propertyWrapper
struct Nullable<Value: Encodable>: Encodable {
    /// The value, or `nil` for `null`.
    var wrappedValue: Value?

    /// Wraps `wrappedValue`.
    init(wrappedValue: Value?) {
        self.wrappedValue = wrappedValue
    }

    /// Writes the value, or `null`.
    func encode(to encoder: any Encoder) throws {
        try wrappedValue.encode(to: encoder)
    }
}
