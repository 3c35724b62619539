/// The image formats a poster may be stored in, recognized by their first bytes.
public enum PosterImage: String, Sendable, CaseIterable {
    case jpeg, png, webp

    /// The file name extension a stored poster of this format gets.
    package var fileExtension: String {
        switch self {
        case .jpeg: "jpg"
        case .png: "png"
        case .webp: "webp"
        }
    }

    /// The format whose signature `bytes` start with, or `nil`: JPEG `FF D8 FF`, PNG's eight-byte
    /// signature, WebP `RIFF····WEBP`.
    package static func sniff(_ bytes: some Collection<UInt8>) -> PosterImage? {
        let head = Array(bytes.prefix(12))
        if head.starts(with: [0xFF, 0xD8, 0xFF]) { return .jpeg }
        if head.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) { return .png }
        if head.count == 12, head.starts(with: Array("RIFF".utf8)), head[8..<12].elementsEqual("WEBP".utf8) {
            return .webp
        }
        return nil
    }

    /// Whether a response with this content type and body is a poster to keep: an `image/*` type
    /// and a body that starts with a known image signature. Returns the format, or why not.
    ///
    /// Both are needed: image hosts answer a missing image with an HTML page under 200, and
    /// some mislabel an HTML page as `image/jpeg`.
    public static func check(contentType: String?, body: [UInt8]) -> Result<PosterImage, PosterRejection> {
        guard let contentType, isImageType(contentType) else {
            return .failure(.notAnImage(contentType: contentType))
        }
        guard let kind = sniff(body) else {
            let type = contentType.split(separator: ";").first.map {
                $0.trimmingCharacters(in: .whitespaces).lowercased()
            }
            return .failure(.unknownSignature(contentType: type ?? ""))
        }
        return .success(kind)
    }

    /// Whether a `Content-Type` value names an `image/*` type: its media type, blanks before it
    /// passed over, starts with `image/` in any case. Read as bytes: it is asked of every poster.
    static func isImageType(_ contentType: String) -> Bool {
        var bytes = contentType.utf8[...]
        while let first = bytes.first, first == 0x20 || first == 0x09 { bytes = bytes.dropFirst() }
        let prefix = "image/".utf8
        return bytes.count >= prefix.count
            && zip(bytes, prefix).allSatisfy { ($1 == UInt8(ascii: "/") ? $0 : $0 | 0x20) == $1 }
    }
}

/// Why a downloaded body is not kept as a poster.
public enum PosterRejection: Error, Sendable, Equatable, CustomStringConvertible {
    /// The content type is not `image/*` (often an HTML error page under 200).
    case notAnImage(contentType: String?)
    /// Labelled as an image, but the bytes are not JPEG, PNG or WebP.
    case unknownSignature(contentType: String)

    public var description: String {
        switch self {
        case .notAnImage(let type):
            "not an image (Content-Type: \(type.map { LogText.escaped($0) } ?? "none"))"
        case .unknownSignature(let type):
            "labelled \(LogText.escaped(type)) but its bytes are not JPEG, PNG or WebP"
        }
    }
}
