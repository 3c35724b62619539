import Logging

/// A log handler that writes through another (`inner`): its level, metadata and metadata provider
/// are the other's; a conforming handler says only what it does to an event on the way.
public protocol ForwardingLogHandler: LogHandler {
    /// The handler written through.
    var inner: any LogHandler { get set }
}

extension ForwardingLogHandler {
    /// The wrapped handler's metadata.
    public var metadata: Logger.Metadata {
        get { inner.metadata }
        set { inner.metadata = newValue }
    }

    /// The wrapped handler's metadata provider.
    public var metadataProvider: Logger.MetadataProvider? {
        get { inner.metadataProvider }
        set { inner.metadataProvider = newValue }
    }

    /// The wrapped handler's level.
    public var logLevel: Logger.Level {
        get { inner.logLevel }
        set { inner.logLevel = newValue }
    }

    /// One metadata value of the wrapped handler.
    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { inner[metadataKey: key] }
        set { inner[metadataKey: key] = newValue }
    }
}
