import PorticoStoreSQL

/// A value bound to a statement parameter: the values both SQL backends bind (``SQLValue``);
/// SQLite binds a boolean as the integer 0 or 1 and bytes as a blob.
typealias SQLiteValue = SQLValue
