import Testing

@testable import FilmCacheKit

struct PosterImageTests {
    static let jpeg: [UInt8] = [0xFF, 0xD8, 0xFF, 0xE0, 0, 0x10] + Array("JFIF".utf8)
    static let png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 0x0D]
    static let webp: [UInt8] = Array("RIFF".utf8) + [0x24, 0, 0, 0] + Array("WEBPVP8 ".utf8)
    static let html: [UInt8] = Array("<!DOCTYPE html><html><body>Not here</body></html>".utf8)

    @Test(arguments: [
        (jpeg, PosterImage.jpeg), (png, .png), (webp, .webp),
    ])
    func knownSignaturesAreRecognized(bytes: [UInt8], kind: PosterImage) {
        #expect(PosterImage.sniff(bytes) == kind)
        #expect(PosterImage.check(contentType: "image/\(kind.rawValue)", body: bytes) == .success(kind))
    }

    @Test func anythingElseIsNoImage() {
        #expect(PosterImage.sniff(Self.html) == nil)
        #expect(PosterImage.sniff([]) == nil)
        #expect(PosterImage.sniff([0xFF, 0xD8]) == nil, "cut short")
        #expect(PosterImage.sniff(Array("RIFF\0\0\0\0WAVE".utf8)) == nil, "RIFF, but audio")
        #expect(PosterImage.sniff(Array(Self.png.prefix(7))) == nil)
    }

    @Test func bothTheTypeAndTheBytesMustSayImage() {
        #expect(
            PosterImage.check(contentType: "text/html; charset=utf-8", body: Self.jpeg)
                == .failure(.notAnImage(contentType: "text/html; charset=utf-8")))
        #expect(PosterImage.check(contentType: nil, body: Self.jpeg) == .failure(.notAnImage(contentType: nil)))
        #expect(
            PosterImage.check(contentType: "image/jpeg", body: Self.html)
                == .failure(.unknownSignature(contentType: "image/jpeg")))
        #expect(PosterImage.check(contentType: " Image/JPEG ; q=1", body: Self.jpeg) == .success(.jpeg))
        #expect(PosterImage.check(contentType: "\tIMAGE/png", body: Self.png) == .success(.png))
        for type in ["imagery/jpeg", "image", "image\u{0F}jpeg", "x-image/jpeg", "", "application/octet-stream"] {
            #expect(
                PosterImage.check(contentType: type, body: Self.jpeg) == .failure(.notAnImage(contentType: type)),
                "\(type)")
        }
        // A type not matching the bytes is kept by the bytes: hosts label WebP as JPEG.
        #expect(PosterImage.check(contentType: "image/jpeg", body: Self.webp) == .success(.webp))
    }

    @Test func aRejectionNeverPrintsControlCharactersFromTheServer() {
        let text = PosterRejection.notAnImage(contentType: "text/html\u{1B}[31m").description
        #expect(!text.contains("\u{1B}"))
    }
}
