import SplitMix

/// The image files TMDb bodies name (`/kqjL17yufvn9OVLyXYpvtyrFfak.jpg`) and the sizes
/// `/configuration` lists.
///
/// A name is 23 characters drawn from what it depicts and 4 that check them, so the image path
/// `/t/p/{size}/{file}` can tell a name the stand-in handed out from any other without a table.
enum TMDbImages {
    /// Where the images are served.
    static let path = "/t/p/"
    /// Backdrop widths.
    static let backdropSizes = ["w300", "w780", "w1280", "original"]
    /// Logo widths.
    static let logoSizes = ["w45", "w92", "w154", "w185", "w300", "w500", "original"]
    /// Poster widths.
    static let posterSizes = ["w92", "w154", "w185", "w342", "w500", "w780", "original"]
    /// Profile widths and heights.
    static let profileSizes = ["w45", "w185", "h632", "original"]
    /// Episode still widths.
    static let stillSizes = ["w92", "w185", "w300", "original"]
    /// Every size the image path serves.
    static let allSizes = Set(backdropSizes + logoSizes + posterSizes + profileSizes + stillSizes)

    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789")

    /// The file path (`/NAME.jpg`) of the image of `subject`, e.g. `poster:tt0137523`.
    static func filePath(for subject: String) -> String {
        let stem = code(TMDbCatalog.hash(subject), length: 23)
        return "/" + stem + check(stem) + ".jpg"
    }

    /// Whether `file` (`NAME.jpg`, no slash) is a name ``filePath(for:)`` hands out.
    static func isKnown(file: String) -> Bool {
        guard file.hasSuffix(".jpg") else { return false }
        let name = file.dropLast(4)
        guard name.count == 27 else { return false }
        return check(String(name.prefix(23))) == String(name.suffix(4))
    }

    private static func check(_ stem: String) -> String {
        code(TMDbCatalog.hash("check:" + stem), length: 4)
    }

    /// `length` characters of the alphabet drawn from `seed`.
    private static func code(_ seed: UInt64, length: Int) -> String {
        var generator = SplitMix64(seed: seed)
        return String((0..<length).map { _ in generator.pick(alphabet) })
    }
}
