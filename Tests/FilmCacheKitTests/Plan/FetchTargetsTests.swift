import Testing

@testable import FilmCacheKit

@Suite struct FetchTargetsTests {
    @Test func keepsEveryTargetInOrder() throws {
        let entry = TitleEntry(query: try #require(TitleQuery(title: "Heat", year: 1995)), file: "w.txt", line: 1)
        let targets: [FetchTarget] = [
            .id("tt0000001"), .id("tt0113277"), .title(entry), .id("tt1234567890"), .id("not-an-id"),
            .query("s=heat", shape: .search), .id("tt0000001"),
        ]
        var packed = FetchTargets()
        for target in targets { packed.append(target) }
        #expect(Array(packed) == targets)
        #expect(packed.count == targets.count)
        #expect(packed == FetchTargets(targets))
        #expect(packed != FetchTargets(targets.dropLast()))
        #expect(packed[1] == .id("tt0113277"))
    }

    @Test func keepsAnIDsLeadingZerosAndLength() {
        let ids = ["tt0000001", "tt00000001", "tt0000000001", "tt9999999999"]
        #expect(Array(FetchTargets(ids.map(FetchTarget.id))) == ids.map(FetchTarget.id))
    }
}
