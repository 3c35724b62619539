import Foundation
import Testing

@testable import FilmCacheKit

struct PosterStoreTests {
    let directory = TemporaryDirectory()
    var root: String { directory.path + "/posters" }
    static let image: [UInt8] = [0xFF, 0xD8, 0xFF] + Array(repeating: 7, count: 1000)

    /// The age, in the past, to give a file's modification time.
    func age(_ path: String, seconds: Int) {
        var times = [timespec](repeating: timespec(tv_sec: time(nil) - seconds, tv_nsec: 0), count: 2)
        _ = utimensat(AT_FDCWD, path, &times, 0)
    }

    @Test func aFileIsNamedByItsDigestAndStoredOnce() throws {
        let store = try PosterStore(root: root)
        let (stored, created) = try store.put(Self.image, image: .jpeg)
        #expect(created)
        let digest = SHA256.hex(Self.image)
        #expect(
            stored
                == StoredPoster(
                    sha256: digest, file: PosterStore.relativePath(sha256: digest, image: .jpeg), bytes: 1003))
        #expect(stored.file == "\(digest.prefix(2))/\(digest).jpg")
        #expect(try Data(contentsOf: URL(fileURLWithPath: store.path(of: stored.file))) == Data(Self.image))
        let (again, createdAgain) = try store.put(Self.image, image: .jpeg)
        #expect(again == stored && !createdAgain)
        let names = try FileManager.default.subpathsOfDirectory(atPath: root).filter { $0.hasSuffix(".jpg") }
        #expect(names == [stored.file], "no temporary file left behind")
    }

    @Test func anEarlierStoresDeeperFilesAreHeldKeptInPlaceAndPruned() async throws {
        let store = try PosterStore(root: root)
        let digest = SHA256.hex(Self.image)
        let earlier = PosterStore.earlierRelativePath(sha256: digest, image: .jpeg)
        #expect(earlier == "\(digest.prefix(2))/\(digest.dropFirst(2).prefix(2))/\(digest).jpg")
        try FileManager.default.createDirectory(
            atPath: (store.path(of: earlier) as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try Data(Self.image).write(to: URL(fileURLWithPath: store.path(of: earlier)))
        #expect(store.holds(earlier))
        #expect(!store.holds(PosterStore.relativePath(sha256: digest, image: .jpeg)))

        // Fetched again, the same bytes are not written a second time: the row names the earlier file.
        let (stored, created) = try store.put(Self.image, image: .jpeg)
        #expect(!created && stored == StoredPoster(sha256: digest, file: earlier, bytes: Self.image.count))
        let files = try FileManager.default.subpathsOfDirectory(atPath: root).filter { $0.hasSuffix(".jpg") }
        #expect(files == [earlier])
        // A file there of another size is not the poster: the new one goes one level up.
        let (other, otherCreated) = try store.put(Self.image + [3], image: .jpeg)
        #expect(otherCreated && other.file == PosterStore.relativePath(sha256: other.sha256, image: .jpeg))

        // Deeper names than an earlier store's, or a leaf outside its hex pairs, are not the store's,
        // though a file is there.
        for path in [
            "\(digest.prefix(2))/\(digest.dropFirst(2).prefix(2))/00/\(digest).jpg",
            "\(digest.prefix(2))/zz/\(digest).jpg",
        ] {
            try FileManager.default.createDirectory(
                atPath: (store.path(of: path) as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            try Data(Self.image).write(to: URL(fileURLWithPath: store.path(of: path)))
            #expect(!store.holds(path), "\(path)")
            try FileManager.default.removeItem(atPath: store.path(of: path))
        }
        try FileManager.default.removeItem(atPath: root + "/" + digest.prefix(2) + "/zz")
        try FileManager.default.removeItem(
            atPath: (store.path(of: earlier) as NSString).deletingLastPathComponent + "/00")

        // Pruned like any other: an unreferenced old file goes, with the directories it leaves empty.
        age(store.path(of: earlier), seconds: 7200)
        age(store.path(of: other.file), seconds: 7200)
        let first = try await store.prune(isReferenced: { $0 == digest }, now: Date(), grace: 3600)
        #expect(first.removed == 1 && first.removedBytes == Self.image.count + 1 && first.kept == 1, "\(first)")
        #expect(store.holds(earlier) && !store.holds(other.file))
        let second = try await store.prune(isReferenced: { _ in false }, now: Date(), grace: 3600)
        #expect(second.removed == 1 && second.removedBytes == Self.image.count && second.kept == 0, "\(second)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: root).isEmpty)
    }

    @Test func aPosterStoredAgainIsMadeNewSoAPruneMeanwhileKeepsIt() async throws {
        let store = try PosterStore(root: root)
        let (stored, _) = try store.put(Self.image, image: .jpeg)
        let earlier = PosterStore.earlierRelativePath(sha256: SHA256.hex(Self.image + [4]), image: .jpeg)
        try FileManager.default.createDirectory(
            atPath: (store.path(of: earlier) as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try Data(Self.image + [4]).write(to: URL(fileURLWithPath: store.path(of: earlier)))
        for path in [stored.file, earlier] { age(store.path(of: path), seconds: 7200) }
        // Fetched again (its row not committed yet): both files are new to a prune that runs now.
        #expect(try store.put(Self.image, image: .jpeg) == (stored, false))
        #expect(try store.put(Self.image + [4], image: .jpeg).0.file == earlier)
        let result = try await store.prune(isReferenced: { _ in false }, now: Date(), grace: 3600)
        #expect(result.removed == 0 && result.kept == 2, "\(result)")
        #expect(store.holds(stored.file) && store.holds(earlier))
    }

    @Test func anEarlierLeafThatIsASymlinkIsNeitherReadNorReusedAndAHexPairFileIsNotTheStores() async throws {
        let store = try PosterStore(root: root)
        let digest = SHA256.hex(Self.image)
        let earlier = PosterStore.earlierRelativePath(sha256: digest, image: .jpeg)
        // Outside, a file of the poster's very size under its name; the store's ab/cd links there.
        let outside = directory.path + "/outside"
        try FileManager.default.createDirectory(atPath: outside, withIntermediateDirectories: true)
        try Data(repeating: 9, count: Self.image.count).write(to: URL(fileURLWithPath: outside + "/\(digest).jpg"))
        try FileManager.default.createDirectory(
            atPath: root + "/" + digest.prefix(2), withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(
            atPath: (store.path(of: earlier) as NSString).deletingLastPathComponent, withDestinationPath: outside)
        #expect(!store.holds(earlier))
        let (stored, created) = try store.put(Self.image, image: .jpeg)
        #expect(created && stored.file == PosterStore.relativePath(sha256: digest, image: .jpeg))
        // A regular file with a hex pair's name beside the posters: not the store's, left alone.
        let pairFile = root + "/" + digest.prefix(2) + "/00"
        try Data([1]).write(to: URL(fileURLWithPath: pairFile))
        for path in [store.path(of: stored.file), outside + "/\(digest).jpg", pairFile] { age(path, seconds: 7200) }
        let result = try await store.prune(isReferenced: { _ in false }, now: Date(), grace: 3600)
        #expect(result.removed == 1 && result.foreign == 2, "the link and the file named 00: \(result)")
        #expect(FileManager.default.fileExists(atPath: outside + "/\(digest).jpg"), "nothing outside is removed")
        #expect(FileManager.default.fileExists(atPath: pairFile))
    }

    @Test func theDigestIsSHA256() {
        // FIPS 180-4's example "abc".
        #expect(SHA256.hex(Array("abc".utf8)) == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(KeyFingerprint.legacy("abc") == "ba78")
    }

    @Test func pruneRemovesUnreferencedOldFilesAndLeftoverTemporariesAndNothingElse() async throws {
        let store = try PosterStore(root: root)
        let (kept, _) = try store.put(Self.image, image: .jpeg)
        let (orphan, _) = try store.put(Self.image + [1], image: .jpeg)
        let (fresh, _) = try store.put(Self.image + [2], image: .jpeg)
        let directory = (store.path(of: orphan.file) as NSString).deletingLastPathComponent
        let temporary = directory + "/.\(orphan.sha256).jpg.0123456789abcdef.tmp"
        let foreign = directory + "/README"
        try Data([1]).write(to: URL(fileURLWithPath: temporary))
        try Data([1]).write(to: URL(fileURLWithPath: foreign))
        for path in [store.path(of: kept.file), store.path(of: orphan.file), temporary, foreign] {
            age(path, seconds: 7200)
        }
        let result = try await store.prune(
            isReferenced: { $0 == kept.sha256 }, now: Date(), grace: 3600)
        #expect(result.removed == 1 && result.removedBytes == orphan.bytes)
        #expect(result.temporaryRemoved == 1)
        #expect(result.foreign == 1)
        #expect(result.kept == 2, "the referenced file, and the unreferenced one too new to judge")
        #expect(store.holds(kept.file) && store.holds(fresh.file) && !store.holds(orphan.file))
        #expect(FileManager.default.fileExists(atPath: foreign))
        #expect(!FileManager.default.fileExists(atPath: temporary))
    }

    @Test func aSymlinkUnderAFinalNameIsReplacedNeverWrittenThroughNorTakenAsHeld() throws {
        let store = try PosterStore(root: root)
        let relative = PosterStore.relativePath(sha256: SHA256.hex(Self.image), image: .jpeg)
        // A file outside of the very size of the poster: a stat that followed the link would take it as held.
        let outside = directory.path + "/outside.jpg"
        let outsideBytes = Data(repeating: 9, count: Self.image.count)
        try outsideBytes.write(to: URL(fileURLWithPath: outside))
        try FileManager.default.createDirectory(
            atPath: (store.path(of: relative) as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: store.path(of: relative), withDestinationPath: outside)
        #expect(!store.holds(relative))
        let (_, created) = try store.put(Self.image, image: .jpeg)
        #expect(created)
        #expect(try Data(contentsOf: URL(fileURLWithPath: outside)) == outsideBytes, "the file outside is untouched")
        #expect(store.holds(relative))
        #expect(try Data(contentsOf: URL(fileURLWithPath: store.path(of: relative))) == Data(Self.image))
        #expect(!store.holds("../outside.jpg") && !store.holds(relative + "/x") && !store.holds(""))
        #expect(!store.holds("../" + (directory.path as NSString).lastPathComponent + "/outside.jpg"))
    }

    @Test func aStoreThatCannotBeMadeOrWrittenSaysWhere() throws {
        try Data([1]).write(to: URL(fileURLWithPath: directory.path + "/file"))
        #expect(throws: PosterStoreError.notADirectory(path: directory.path + "/file")) {
            try PosterStore(root: directory.path + "/file")
        }
        #expect {
            try PosterStore(root: directory.path + "/file/below")
        } throws: { error in
            (error as? PosterStoreError).map { "\($0)".contains(directory.path + "/file/below") } ?? false
        }
    }
}
