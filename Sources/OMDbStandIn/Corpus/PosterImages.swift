import SplitMix

/// The images the stand-in serves at its corpus's `Poster` URLs: deterministic JPEG-signed bytes
/// per poster code and version, with an `ETag` and `Last-Modified` that change with the version.
package enum PosterImages {
    /// The prefix of every `Poster` URL in the generated corpus (OMDb's image host).
    package static let corpusPrefix = "https://m.media-amazon.com/images/M/"
    /// The path the stand-in serves posters under.
    public static let path = "/posters/"

    /// The bytes of the poster named `name` (the URL's last part) at `version`: a JPEG header,
    /// 8 to 24 KiB of pseudo-random data, and the end marker.
    public static func image(name: String, version: Int) -> [UInt8] {
        var generator = SplitMix64(seed: seed(name: name, version: version))
        let size = 8_192 + Int(generator.next() % 16_384)
        var bytes: [UInt8] =
            [0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x10] + Array("JFIF".utf8) + [0, 1, 1, 0, 0, 1, 0, 1, 0, 0]
        bytes.reserveCapacity(size + 2)
        while bytes.count < size {
            var word = generator.next()
            for _ in 0..<8 {
                bytes.append(UInt8(truncatingIfNeeded: word))
                word >>= 8
            }
        }
        return bytes + [0xFF, 0xD9]
    }

    /// The quoted entity tag of that image.
    public static func etag(name: String, version: Int) -> String {
        "\"" + String(seed(name: name, version: version), radix: 16) + "\""
    }

    /// The `Last-Modified` of that image: 1 January 2026, plus a day per version after the first.
    public static func lastModified(version: Int) -> String {
        let day = 1 + (max(1, version) - 1) % 28
        return "Thu, \(day < 10 ? "0" : "")\(day) Jan 2026 00:00:00 GMT"
    }

    /// A number in 0..<100 fixed per poster, choosing which posters fault.
    package static func percentile(name: String) -> Int {
        Int(seed(name: name, version: 0) % 100)
    }

    /// FNV-1a of the name and version.
    private static func seed(name: String, version: Int) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in name.utf8 + Array(String(version).utf8) {
            hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3
        }
        return hash
    }
}
