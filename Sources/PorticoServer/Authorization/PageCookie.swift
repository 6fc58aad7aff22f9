/// The names the provider's cookies go by: `__Host-` in front on an https issuer.
///
/// Why: a `__Host-` cookie is only accepted by browsers when set over https, with `Path=/` and
/// no `Domain`, so a sibling subdomain or a plain-http page cannot plant or overwrite it (RFC
/// 6265bis §4.1.3.2); only the prefixed name is read there. Plain http (loopback development)
/// cannot use the prefix, and keeps the bare names.
enum PageCookie {
    /// `base`, prefixed when `secure`.
    static func name(_ base: String, secure: Bool) -> String {
        secure ? "__Host-" + base : base
    }
}
