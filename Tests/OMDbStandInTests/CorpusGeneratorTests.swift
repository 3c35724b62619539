import Foundation
import OMDbStandIn
import Testing

@Test func sameSeedGivesIdenticalBytes() {
    #expect(CorpusGenerator(seed: 1).films(count: 50) == CorpusGenerator(seed: 1).films(count: 50))
}
