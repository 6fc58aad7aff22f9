import PorticoKit

/// The companion socket's message decoder (`portico-agent` reads every peer's line with it):
/// a request it accepts passes its own checks, encodes to one line, and decodes again to the
/// same request; a reply does the same.
enum CompanionTargets {
    static func message(_ bytes: [UInt8]) {
        if let request = try? CompanionRequest(decoding: bytes) {
            FuzzFailure.check(bytes.count <= CompanionProtocol.maximumMessageBytes, "an oversized message was read")
            let encoded = request.encoded()
            FuzzFailure.check(!encoded.contains(0x0A), "an encoded request spans lines")
            FuzzFailure.check(
                (try? CompanionRequest(decoding: encoded)) == request
                    || encoded.count > CompanionProtocol.maximumMessageBytes,
                "an accepted request does not round-trip")
        }
        if let reply = CompanionReply(decoding: bytes) {
            let encoded = reply.encoded()
            FuzzFailure.check(!encoded.contains(0x0A), "an encoded reply spans lines")
            FuzzFailure.check(
                CompanionReply(decoding: encoded) == reply || encoded.count > CompanionProtocol.maximumMessageBytes,
                "an accepted reply does not round-trip")
        }
    }
}
