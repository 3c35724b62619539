/// Why a job file cannot be used: every problem found, each with the line it is on.
///
/// A job file is read whole before anything runs, so an operator sees all of its mistakes at once.
/// Messages never quote a value, so a key written where it does not belong is not echoed back.
public struct JobFileError: Error, Equatable, CustomStringConvertible {
    /// One problem in a job file.
    public struct Issue: Error, Sendable, Equatable {
        /// The 1-based line, when the problem has one.
        public var line: Int?
        /// What is wrong and, where it helps, what to write instead.
        public var message: String

        /// Creates an issue.
        public init(line: Int?, message: String) {
            self.line = line
            self.message = message
        }
    }

    /// The job file as named on the command line.
    public var path: String
    /// The problems, in line order.
    public var issues: [Issue]

    /// Creates an error for `path`.
    public init(path: String, issues: [Issue]) {
        self.path = path
        self.issues = issues
    }

    /// Creates an error with one problem.
    public init(path: String, line: Int?, _ message: String) {
        self.init(path: path, issues: [Issue(line: line, message: message)])
    }

    /// One line per problem: `job file PATH:LINE: message`.
    public var messages: [String] {
        issues.map { issue in "job file \(path)\(issue.line.map { ":\($0)" } ?? ""): \(issue.message)" }
    }

    /// The messages, one a line.
    public var description: String { messages.joined(separator: "\n") }
}
