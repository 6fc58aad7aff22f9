// PorticoKit: filled by its issue.
