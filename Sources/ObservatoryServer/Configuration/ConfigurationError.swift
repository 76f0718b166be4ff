/// A setting, flag or configuration file the daemon cannot use.
///
/// Every case names the setting (dotted, as in the file: `limits.maxKeys`) or the
/// flag, so the operator knows what to fix. The daemon prints `description` and
/// exits with status 2.
public enum ConfigurationError: Error, Equatable, CustomStringConvertible {
    /// The file has a key that is not a setting (often a typo).
    case unknownSetting(String)
    /// The setting has a JSON type other than the one it needs.
    case wrongType(setting: String, expected: String)
    /// The setting is a number outside its allowed range.
    case outOfRange(setting: String, value: String, allowed: String)
    /// The setting is a string that is not one of its allowed values.
    case invalidValue(setting: String, value: String, allowed: String)
    /// The configuration file could not be read.
    case unreadableFile(path: String, reason: String)
    /// The configuration file is not valid JSON.
    case malformedFile(path: String, reason: String)
    /// A flag that takes a value was last on the command line.
    case missingFlagValue(flag: String)
    /// A command-line argument the daemon does not know.
    case unknownFlag(String)
    /// A setting of an older version, which the daemon no longer reads; `by` says how to write it now.
    case replacedSetting(String, by: String)

    /// A message naming the setting or flag and saying what is wrong with it.
    public var description: String {
        switch self {
        case .unknownSetting(let setting):
            "unknown setting '\(setting)' (check its spelling against Config/observatory.json)"
        case .wrongType(let setting, let expected):
            "setting '\(setting)' must be \(expected)"
        case .outOfRange(let setting, let value, let allowed):
            "setting '\(setting)' is \(value), allowed: \(allowed)"
        case .invalidValue(let setting, let value, let allowed):
            "setting '\(setting)' is '\(value)', allowed: \(allowed)"
        case .unreadableFile(let path, let reason):
            "cannot read configuration file '\(path)': \(reason)"
        case .malformedFile(let path, let reason):
            "configuration file '\(path)' is not valid JSON: \(reason)"
        case .missingFlagValue(let flag):
            "flag '\(flag)' needs a value (see --help)"
        case .unknownFlag(let flag):
            "unknown argument '\(flag)' (see --help)"
        case .replacedSetting(let setting, let replacement):
            "setting '\(setting)' is no longer read; write it as \(replacement)"
        }
    }
}
