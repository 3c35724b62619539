import Foundation

/// Words for why a file could not be read, from the error `Data(contentsOf:)` threw.
enum FileReadFailure {
    /// Foundation's reason when it has one ("The file doesn't exist."), else the system's ("Is a directory").
    ///
    /// Some failures, a directory among them, come wrapped in a generic "could not be completed"
    /// error whose text names only its domain and code; the POSIX error underneath says what happened.
    static func reason(_ error: any Error) -> String {
        let error = error as NSError
        if let reason = error.localizedFailureReason { return reason }
        if let underlying = error.userInfo[NSUnderlyingErrorKey] as? any Error {
            let underlying = underlying as NSError
            if underlying.domain == NSPOSIXErrorDomain { return String(cString: strerror(Int32(underlying.code))) }
        }
        return error.localizedDescription
    }
}
