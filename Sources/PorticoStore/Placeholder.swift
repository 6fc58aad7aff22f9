// PorticoStore: filled by its issue.
