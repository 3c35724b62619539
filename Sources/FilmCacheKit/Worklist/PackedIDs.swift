/// A list of IDs at 8 bytes each: an IMDb title ID as its digits and how many there are
/// (`tt0000001` keeps its zeros). Any other text (a caller may plan any string) is kept
/// aside and stands as its index there.
///
/// A 100,000-line worklist is then 0.8 MB in memory instead of 1.6 MB of `String`s.
struct PackedIDs: Sendable, Equatable {
    private var packed: [UInt64] = []
    /// The texts that are not IMDb title IDs, in the order met.
    private var others: [String] = []
    private static let otherFlag: UInt64 = 1 << 63

    init() {}

    var count: Int { packed.count }

    subscript(index: Int) -> String { unpack(packed[index]) }

    mutating func reserveCapacity(_ count: Int) { packed.reserveCapacity(count) }

    mutating func append(_ id: String) {
        guard let bits = Self.pack(id) else {
            others.append(id)
            packed.append(Self.otherFlag | UInt64(others.count - 1))
            return
        }
        packed.append(bits)
    }

    /// Appends an IMDb title ID ``pack(bytes:)`` packed.
    mutating func append(packed bits: UInt64) {
        assert(bits & Self.otherFlag == 0, "not a packed IMDb title ID")
        packed.append(bits)
    }

    /// An IMDb title ID as its digits and how many there are (below bit 63); `nil` for any other text.
    static func pack(_ id: String) -> UInt64? {
        var id = id
        return id.withUTF8 { pack(bytes: $0) }
    }

    /// ``pack(_:)`` of an ID's UTF-8 bytes, read in place: a worklist's lines are packed with no
    /// `String` made for them.
    static func pack(bytes: UnsafeBufferPointer<UInt8>) -> UInt64? {
        guard PlainTextWorklist.isIMDbID(bytes: bytes) else { return nil }
        var digits: UInt64 = 0
        for byte in bytes[2...] { digits = digits * 10 + UInt64(byte - 48) }
        return UInt64(bytes.count - 2) << 40 | digits
    }

    /// Appends every ID of `other`, in order.
    mutating func append(contentsOf other: PackedIDs) {
        if packed.isEmpty && others.isEmpty {
            self = other
            return
        }
        let offset = UInt64(others.count)
        others += other.others
        packed.reserveCapacity(packed.count + other.packed.count)
        for bits in other.packed { packed.append(bits & Self.otherFlag != 0 ? bits + offset : bits) }
    }

    /// The ID `append` made `bits` of, as it was written.
    private func unpack(_ bits: UInt64) -> String {
        if bits & Self.otherFlag != 0 { return others[Int(bits & ~Self.otherFlag)] }
        return Self.unpack(bits)
    }

    /// The IMDb title ID ``pack(_:)`` made `bits` of.
    static func unpack(_ bits: UInt64) -> String {
        let count = Int(bits >> 40)
        var digits = bits & (1 << 40 - 1)
        return String(unsafeUninitializedCapacity: count + 2) { buffer in
            buffer[0] = UInt8(ascii: "t")
            buffer[1] = UInt8(ascii: "t")
            for index in stride(from: count + 1, through: 2, by: -1) {
                buffer[index] = UInt8(48 + digits % 10)
                digits /= 10
            }
            return count + 2
        }
    }
}
