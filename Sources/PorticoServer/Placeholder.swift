// PorticoServer: filled by its issue.
