import ArgumentParser
import FilmCacheKit

/// The `--worklist-format` flag of the commands that read worklists.
struct WorklistFormatOption: ParsableArguments {
    /// The format given on the command line, if any.
    @Option(
        name: .customLong("worklist-format"),
        help: Setting.worklistFormat.argumentHelp)
    var format: WorklistFormat?

    /// The flag, else the job file's `worklist_format`, else detection from content.
    func resolved(job: JobFile?) -> WorklistFormat {
        format ?? job?.worklistFormat.flatMap(WorklistFormat.init(rawValue:)) ?? .auto
    }

    /// Reads `paths` in the resolved format; a worklist that cannot be used ends the command with exit 65.
    func read(_ paths: [String], job: JobFile?) throws -> Worklist {
        try Self.read(paths, format: resolved(job: job))
    }

    /// The worklists at `paths`, read as `format`; one that cannot be read is exit 65, naming it.
    static func read(_ paths: [String], format: WorklistFormat) throws -> Worklist {
        do {
            return try Worklist.read(paths: paths, format: format)
        } catch {
            throw fail(error.description, status: ExitStatus.dataError)
        }
    }
}

extension WorklistFormat: ExpressibleByArgument {}
