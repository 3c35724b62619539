/// Exit statuses from sysexits.h, the vocabulary cron and systemd understand.
public enum ExitStatus {
    public static let usage: Int32 = 64
    public static let dataError: Int32 = 65
    /// An input file that cannot be opened (EX_NOINPUT).
    public static let noInput: Int32 = 66
    public static let unavailable: Int32 = 69
    /// A library the command needs cannot be loaded (EX_OSFILE): libcurl when a transport is made
    /// (``CurlGlobal``), libcrypto when a key or a poster is first named (``CryptoGlobal``).
    public static let osFile: Int32 = 72
    /// A directory or file the command must create cannot be (EX_CANTCREAT).
    public static let cannotCreate: Int32 = 73
    public static let ioError: Int32 = 74
    public static let tryAgainLater: Int32 = 75
    /// The server at the base URL does not speak OMDb's protocol (EX_PROTOCOL).
    public static let protocolError: Int32 = 76
    public static let configuration: Int32 = 78
}

extension ExitStatus {
    /// The exit status of a command a read or write failed: 75 when the database server could not be
    /// reached or the connection was lost (worth trying later), else 74.
    public static func of(_ error: any Error) -> Int32 {
        if case .unavailable = error as? StoreError { return tryAgainLater }
        return ioError
    }
}
