// PorticoHTTP
