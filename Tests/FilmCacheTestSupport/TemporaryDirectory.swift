import Foundation

/// A fresh directory under the system temp dir, removed when the value is released.
package final class TemporaryDirectory: Sendable {
    package let path: String

    package init() {
        path = NSTemporaryDirectory() + "filmcache-test-" + UUID().uuidString
        try! FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    deinit {
        try? FileManager.default.removeItem(atPath: path)
    }

    /// A path inside the directory.
    package func file(_ name: String) -> String { path + "/" + name }

    /// Writes `text` to `name` and returns its path.
    @discardableResult
    package func write(_ name: String, _ text: String) -> String {
        let target = file(name)
        try! Data(text.utf8).write(to: URL(fileURLWithPath: target))
        return target
    }
}
