import PorticoStore

/// The backend-neutral store conformance suite (filled in below).
public enum StoreConformance {}
