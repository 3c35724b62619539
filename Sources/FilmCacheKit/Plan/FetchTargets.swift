/// A list of fetch targets at 8 bytes each: an IMDb title ID packed as ``PackedIDs`` packs it, any
/// other target (a title, a query, an ID of another shape) kept aside and standing as its index there.
///
/// A plan of a million IDs is then 8 MB in memory instead of 24 MB of ``FetchTarget`` values.
public struct FetchTargets: RandomAccessCollection, Sendable, Equatable, ExpressibleByArrayLiteral {
    private var packed: [UInt64] = []
    /// The targets that are not IMDb title IDs, in the order met.
    private var others: [FetchTarget] = []
    private static let otherFlag: UInt64 = 1 << 63

    public init() {}

    public init(arrayLiteral targets: FetchTarget...) {
        self.init(targets)
    }

    /// The list of `targets`, in order.
    public init(_ targets: some Sequence<FetchTarget>) {
        for target in targets { append(target) }
    }

    public var startIndex: Int { 0 }
    public var endIndex: Int { packed.count }

    public subscript(index: Int) -> FetchTarget {
        let bits = packed[index]
        if bits & Self.otherFlag != 0 { return others[Int(bits & ~Self.otherFlag)] }
        return .id(PackedIDs.unpack(bits))
    }

    public mutating func append(_ target: FetchTarget) {
        if case .id(let id) = target, let bits = PackedIDs.pack(id) {
            packed.append(bits)
            return
        }
        others.append(target)
        packed.append(Self.otherFlag | UInt64(others.count - 1))
    }

    public static func == (a: FetchTargets, b: FetchTargets) -> Bool { a.elementsEqual(b) }
}
