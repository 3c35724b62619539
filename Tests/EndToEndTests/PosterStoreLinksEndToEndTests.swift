import Foundation
import Synchronization
import Testing

/// Symlinks and hard links planted in a poster store, before and during a run of the built
/// `filmcache`: nothing outside the store is ever written or deleted.
@Suite(.serialized) struct PosterStoreLinksEndToEndTests {
    let scratch: ReliabilityScratch
    var db: String { scratch.db }
    var store: String { scratch.dir + "/posters" }
    var outside: String { scratch.dir + "/outside" }
    let environment = ["OMDB_API_KEY": "test-key-e2e"]

    init() throws {
        scratch = try ReliabilityScratch("poster-links")
        try FileManager.default.createDirectory(atPath: outside, withIntermediateDirectories: true)
    }

    /// A cache of `count` films whose posters are stored, from a stand-in on loopback (allowed).
    @discardableResult
    func warmedWithPosters(_ count: Int) throws -> StandInProcess {
        let standIn = try StandInProcess(arguments: ["--generate", "\(count + 10)", "--posters"], corpus: nil)
        let worklist = try scratch.worklist("ids.txt", GeneratedIDs.first(count))
        let out = try BuiltBinaries.run(
            "filmcache",
            [
                "warm", "--db", db, "--base-url", standIn.baseURL, "--rate", "0", "--posters", store,
                "--poster-allow-host", "127.0.0.1", worklist,
            ], environment: environment)
        #expect(out.status == 0, "\(out.stdout)\(out.stderr)")
        return standIn
    }

    func prune(store: String? = nil) throws -> BuiltBinaries.Output {
        try BuiltBinaries.run(
            "filmcache",
            ["posters", "--db", db, "--store", store ?? self.store, "--poster-allow-host", "127.0.0.1", "--prune"],
            environment: environment)
    }

    /// A name the store would give a poster in directory `ab` (or an earlier store in `ab/cd`):
    /// 64 hex digits starting with `prefix` (`ab`, `abcd`), `.jpg`.
    static func storeName(_ prefix: String) -> String {
        let digits = (0..<(64 - prefix.count)).map { _ in String(Int.random(in: 0..<16), radix: 16) }.joined()
        return prefix + digits + ".jpg"
    }

    /// Writes `path` (its directory made), dated three hours ago: past prune's grace period.
    func plant(_ path: String, _ text: String = "not a poster") throws {
        try FileManager.default.createDirectory(
            atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        age(path)
    }

    /// Dates `path` (not what a symlink there points at) three hours ago.
    func age(_ path: String) {
        var times = [timespec](repeating: timespec(tv_sec: time(nil) - 3 * 3600, tv_nsec: 0), count: 2)
        _ = utimensat(AT_FDCWD, path, &times, AT_SYMLINK_NOFOLLOW)
    }

    func symlink(_ path: String, to target: String) throws {
        try FileManager.default.createSymbolicLink(atPath: path, withDestinationPath: target)
        age(path)
    }

    /// A two-hex-digit name not yet in `directory`.
    func freePair(in directory: String) -> String {
        let taken = Set((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? [])
        return (0..<256).map { String(format: "%02x", $0) }.first { !taken.contains($0) } ?? "zz"
    }

    func exists(_ path: String) -> Bool {
        var info = stat()
        return lstat(path, &info) == 0
    }

    @Test func pruneFollowsNoSymlinkAndRemovesOnlyFilesTheStoreWrote() throws {
        try warmedWithPosters(12)
        let kept = try scratch.column("SELECT file FROM posters WHERE file IS NOT NULL")
        #expect(kept.count >= 8)
        let directory = String(kept[0].prefix(2))  // "ab" of a real poster
        let prefix = directory
        let first = directory

        // An unreferenced poster of the store's own: the one file prune may remove.
        let orphan = store + "/" + directory + "/" + Self.storeName(prefix)
        try plant(orphan)
        // A first-level directory that is a symlink to a tree outside holding store-named files.
        let linkedFirst = freePair(in: store)
        let outsideTree = outside + "/tree"
        let treeFile = outsideTree + "/\(linkedFirst)/bc/" + Self.storeName(linkedFirst + "bc")
        try plant(treeFile)
        try symlink(store + "/" + linkedFirst, to: outsideTree + "/" + linkedFirst)
        // A second-level directory (where an earlier store kept files), beside real ones, that is a symlink outside.
        let linkedSecond = freePair(in: store + "/" + first)
        let outsideLeaf = outside + "/leaf"
        let leafFile = outsideLeaf + "/" + Self.storeName(first + linkedSecond)
        try plant(leafFile)
        try symlink(store + "/" + first + "/" + linkedSecond, to: outsideLeaf)
        // A symlink under a store name, pointing at a file outside.
        let target = outside + "/target.jpg"
        try plant(target)
        let link = store + "/" + directory + "/" + Self.storeName(prefix)
        try symlink(link, to: target)
        // A hard link under a store name to a file outside: the store never makes one.
        let hardTarget = outside + "/hard.jpg"
        try plant(hardTarget)
        let hard = store + "/" + directory + "/" + Self.storeName(prefix)
        #expect(Foundation.link(hardTarget, hard) == 0)
        // Names the store would not write.
        let foreignNames = [
            "notes.txt", Self.storeName(prefix).uppercased(), String(Self.storeName(prefix).dropLast(3)) + "gif",
        ]
        for name in foreignNames { try plant(store + "/" + directory + "/" + name) }
        // The tree's own files are old too, so only a reference keeps them.
        _ = try ReliabilityProcess.run(
            "/usr/bin/find", [store, "-type", "f", "-exec", "touch", "-d", "3 hours ago", "{}", "+"])

        let out = try prune()
        #expect(out.status == 0, "\(out.stdout)\(out.stderr)")
        #expect(out.stdout.contains("pruned: 1 files no film references"), "\(out.stdout)")
        #expect(
            out.stdout.contains("\(foreignNames.count + 4) files not named by the store left alone"), "\(out.stdout)")
        #expect(!exists(orphan), "the store's own unreferenced file is removed")
        for file in [treeFile, leafFile, target, hardTarget] {
            #expect(exists(file), "\(file) outside the store is untouched")
        }
        for planted in [store + "/" + linkedFirst, store + "/" + first + "/" + linkedSecond, link, hard] {
            #expect(exists(planted), "\(planted) is left where it was")
        }
        for file in kept { #expect(exists(store + "/" + file), "\(file) is referenced") }
    }

    @Test func aStoreRootThatIsASymlinkIsTheStoreTheOperatorNamed() throws {
        try warmedWithPosters(10)
        let kept = try scratch.column("SELECT file FROM posters WHERE file IS NOT NULL")
        let named = scratch.dir + "/named-store"
        try FileManager.default.createSymbolicLink(atPath: named, withDestinationPath: store)
        let directory = String(kept[0].prefix(2))
        let orphan = store + "/" + directory + "/" + Self.storeName(directory)
        try plant(orphan)
        let out = try prune(store: named)
        #expect(out.status == 0, "\(out.stdout)\(out.stderr)")
        #expect(out.stdout.contains("pruned: 1 files no film references"), "\(out.stdout)")
        #expect(!exists(orphan))
        for file in kept { #expect(exists(store + "/" + file)) }
    }

    /// `directory` is `ab` (where the store keeps files) or `ab/cd` (where an earlier store kept them).
    @Test(arguments: ["ab", "ab/cd"])
    func aDirectorySwappedForASymlinkWhilePruneRunsCostsNothingOutside(directory: String) throws {
        try warmedWithPosters(8)
        // Thousands of unreferenced store-named files in the directory, and the same names in a directory
        // outside; while prune runs, the directory is swapped for a symlink to it and back, over and over.
        // 1,500 a depth: as many files made and removed as the one depth this test had before.
        let names = (0..<1500).map { _ in Self.storeName(directory.replacingOccurrences(of: "/", with: "")) }
        let inside = store + "/" + directory
        let outsideDirectory = outside + "/" + (directory as NSString).lastPathComponent
        let old = [timespec](repeating: timespec(tv_sec: time(nil) - 3 * 3600, tv_nsec: 0), count: 2)
        for directory in [inside, outsideDirectory] {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            for name in names {
                let fd = open(directory + "/" + name, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
                #expect(fd >= 0 && write(fd, "x", 1) == 1 && futimens(fd, old) == 0, "\(directory)/\(name)")
                close(fd)
            }
        }

        // The swapping runs on a thread of its own while the binary runs, and stops when it has ended.
        let stop = Atomic<Bool>(false)
        let swaps = Atomic<Int>(0)
        let away = inside + ".away"
        let finished = DispatchSemaphore(value: 0)
        let swapper = Thread {
            defer { finished.signal() }
            while !stop.load(ordering: .acquiring) {
                guard rename(inside, away) == 0 else {
                    usleep(1000)  // prune removed the emptied directory
                    continue
                }
                Foundation.symlink(outsideDirectory, inside)
                usleep(100)
                unlink(inside)
                rename(away, inside)
                swaps.add(1, ordering: .relaxed)
                usleep(100)
            }
        }
        let run = try RunningBinary(
            "filmcache",
            ["posters", "--db", db, "--store", store, "--poster-allow-host", "127.0.0.1", "--prune"],
            environment: environment)
        swapper.start()
        let out = run.wait()
        stop.store(true, ordering: .releasing)
        #expect(finished.wait(timeout: .now() + 30) == .success, "the swapping thread stopped")
        if !exists(inside), exists(away) { rename(away, inside) }
        #expect(out.status == 0, "\(out.stdout)\(out.stderr)")
        #expect(swaps.load(ordering: .relaxed) > 0, "the directory was swapped while prune ran")
        let left = (try? FileManager.default.contentsOfDirectory(atPath: outsideDirectory)) ?? []
        #expect(left.count == names.count, "prune removed \(names.count - left.count) files outside the store")
        #expect(out.stdout.contains("pruned: "), "\(out.stdout)")
    }

    @Test func aSymlinkedDirectoryInTheStoreIsNeverWrittenThrough() throws {
        let standIn = try warmedWithPosters(10)
        defer { withExtendedLifetime(standIn) {} }
        let files = try scratch.column("SELECT file FROM posters WHERE file IS NOT NULL ORDER BY file")
        let first = String(files[0].prefix(2))
        // The store's ab/ is replaced by a symlink to an empty directory outside; its posters are due again.
        try FileManager.default.removeItem(atPath: store + "/" + first)
        try FileManager.default.createDirectory(atPath: outside + "/" + first, withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(
            atPath: store + "/" + first, withDestinationPath: outside + "/" + first)
        _ = try scratch.sqlite("DELETE FROM posters WHERE file LIKE '\(first)/%'")

        let out = try BuiltBinaries.run(
            "filmcache", ["posters", "--db", db, "--store", store, "--poster-allow-host", "127.0.0.1"],
            environment: environment)
        #expect(out.status == 74, "\(out.stdout)\(out.stderr)")
        #expect(
            out.stderr.contains(
                "cannot create \(store)/\(first): a symlink or not a directory (the store follows no symlink)"),
            "\(out.stderr)")
        let written = FileManager.default.enumerator(atPath: outside + "/" + first)?.allObjects ?? []
        #expect(written.isEmpty, "nothing was written outside the store: \(written)")
    }
}
