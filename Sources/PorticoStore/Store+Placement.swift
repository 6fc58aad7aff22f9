extension Store {
    /// An embedded store (SQLite) answers from local disk in microseconds.
    public var isRemote: Bool { false }
}
