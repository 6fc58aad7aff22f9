import CQRencode

/// A QR code as inline SVG markup, its modules computed by libqrencode.
///
/// Inline markup (rather than a `data:` image) needs no change to the pages' Content Security
/// Policy and stays sharp at any zoom. Error correction level M and 8-bit mode suit an
/// `otpauth://` URI; the quiet zone is the 4 modules ISO/IEC 18004 asks for. The symbol is
/// always dark on white, dark mode or not: phone cameras read dark-on-light reliably.
enum QRCodeSVG {
    /// The quiet zone around the symbol, in modules.
    static let quietZone = 4

    /// The module rows of `text`'s symbol (true: dark), or nil when libqrencode cannot encode it.
    static func modules(for text: String) -> [[Bool]]? {
        guard let code = QRcode_encodeString(text, 0, QR_ECLEVEL_M, QR_MODE_8, 1) else { return nil }
        defer { QRcode_free(code) }
        let width = Int(code.pointee.width)
        guard width > 0, let data = code.pointee.data else { return nil }
        return (0..<width).map { row in (0..<width).map { column in data[row * width + column] & 1 == 1 } }
    }

    /// The SVG for `text`, labelled `label` for assistive technology; nil when it cannot be encoded.
    static func svg(for text: String, label: String) -> String? {
        guard let rows = modules(for: text) else { return nil }
        let size = rows.count + 2 * quietZone
        var path = ""
        for (y, row) in rows.enumerated() {
            var x = 0
            while x < row.count {
                guard row[x] else {
                    x += 1
                    continue
                }
                let start = x
                while x < row.count, row[x] { x += 1 }
                path += "M\(start + quietZone) \(y + quietZone)h\(x - start)v1h-\(x - start)z"
            }
        }
        return """
            <svg class="qr" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 \(size) \(size)" \
            width="\(size * 4)" height="\(size * 4)" role="img" aria-label="\(HTML.escape(label))" \
            shape-rendering="crispEdges"><rect width="\(size)" height="\(size)" fill="#fff"/>\
            <path fill="#000" d="\(path)"/></svg>
            """
    }
}
