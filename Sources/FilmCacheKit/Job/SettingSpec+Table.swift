extension SettingSpec {
    /// The table of docs/JOBS.md's "Keys" section, one row per setting, made from the registry.
    ///
    /// `SettingTableTests` fails when docs/JOBS.md holds another; `FILMCACHE_RECORD_JOBS=1` rewrites it.
    package static var markdownTable: String {
        var lines = ["| key | type | default | meaning | flag |", "| --- | --- | --- | --- | --- |"]
        for spec in all {
            var type = spec.type
            for order in SettingOrder.all {
                if order.smaller == spec.key { type += ", at most `\(order.larger.rawValue)`" }
                if order.larger == spec.key { type += ", at least `\(order.smaller.rawValue)`" }
            }
            let cells = ["`\(spec.key.rawValue)`", type, spec.defaultText, spec.meaning, spec.flagText]
            lines.append("| " + cells.joined(separator: " | ") + " |")
        }
        return lines.joined(separator: "\n") + "\n"
    }
}
