/// Horizontal bars of block characters, the reports' terminal charts.
enum TextBar {
    /// Partial cells, in eighths: index n draws n/8 of a cell.
    static let partialCells: [Character] = [" ", "▏", "▎", "▍", "▌", "▋", "▊", "▉"]
    /// A full cell.
    static let fullCell: Character = "█"

    /// A bar for `value` where `scale` fills `width` cells, drawn to the nearest eighth of a cell.
    ///
    /// Any positive value shows at least an eighth, so a day with one call is not drawn as none;
    /// a value beyond the scale fills the width and ends in `+`.
    static func bar(_ value: Int, scale: Int, width: Int) -> String {
        guard value > 0, width > 0 else { return "" }
        guard scale > 0, value <= scale else { return String(repeating: fullCell, count: width) + "+" }
        let eighths = max(1, Int((Double(value) / Double(scale) * Double(width * 8)).rounded()))
        var bar = String(repeating: fullCell, count: eighths / 8)
        if eighths % 8 > 0 { bar.append(partialCells[eighths % 8]) }
        return bar
    }
}
