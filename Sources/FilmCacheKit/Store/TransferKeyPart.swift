/// One part of a table's key, as a copy orders its pages: text in byte order, or a number.
package enum TransferKeyPart: Sendable, Equatable {
    case text(String)
    case integer(Int)
}

extension TransferCursor {
    /// The film ID a page of films starts after: `""` at the start.
    package var filmID: String {
        if case .id(let id) = self { id } else { "" }
    }

    /// The parts of the key a page starts after; `nil` at the start.
    package var keyParts: [TransferKeyPart]? {
        switch self {
        case .start: nil
        case .id(let id): [.text(id)]
        case .title(let key): [.text(key.title), .integer(key.year), .text(key.type)]
        case .day(let key, let day): [.text(key), .text(day)]
        case .minute(let key, let minute): [.text(key), .integer(minute)]
        case .run(let id): [.integer(id)]
        case .tmdb(let ref): [.text(ref.mediaType.rawValue), .integer(ref.id)]
        case .dayKind(let day, let kind): [.text(day), .text(kind)]
        case .row(let number): [.integer(number)]
        }
    }
}
