import ArgumentParser
import FilmCacheKit

extension Setting {
    /// The flag's help as the registry declares it: its line (range and default included) and discussion.
    var argumentHelp: ArgumentHelp { ArgumentHelp(help, discussion: discussion) }

    /// The flag's help with the value named `valueName` in the usage line.
    func argumentHelp(valueName: String) -> ArgumentHelp {
        ArgumentHelp(help, discussion: discussion, valueName: valueName)
    }
}
