/// When changes are forced to disk; `none` keeps the store in memory only.
public enum FsyncPolicy: String, Sendable, CaseIterable {
    /// Every acknowledged change survives a machine crash.
    case always
    /// Changes are forced to disk once a second; a machine crash may lose the last second.
    case everysec
    /// No storage: the store lives in memory and is empty after a restart.
    case none
}
