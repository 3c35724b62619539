#if canImport(Glibc)
    import Glibc
#endif

/// Variables of the process's environment read one at a time with `getenv`: a command that needs
/// one or two does not make a dictionary of all of them (`ProcessInfo`'s, a measurable part of a
/// start-up).
enum ProcessEnvironment {
    /// The variable's value, or `nil` when it is not set.
    static func value(_ name: String) -> String? {
        getenv(name).map { String(cString: $0) }
    }

    /// The variables named that are set, by name.
    static func only(_ names: String...) -> [String: String] {
        var values: [String: String] = [:]
        for name in names {
            if let value = value(name) { values[name] = value }
        }
        return values
    }
}
