// PorticoCrypto: filled by its issue.
