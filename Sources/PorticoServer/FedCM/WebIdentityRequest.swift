import PorticoHTTP

/// What every FedCM endpoint checks first: the request comes from the browser's FedCM.
///
/// Browsers send `Sec-Fetch-Dest: webidentity` with every FedCM fetch, and no page can set a
/// `Sec-` header, so a request without it (a form, an image, a script's fetch) is refused
/// before anything is read: the credentialed endpoints cannot be forged from another site.
enum WebIdentityRequest {
    /// The header and the value FedCM's fetches carry.
    static let header = "Sec-Fetch-Dest"
    static let value = "webidentity"

    /// Throws ``FedCMError/notWebIdentity`` unless `request` is one of FedCM's fetches.
    static func check(_ request: Request) throws(FedCMError) {
        guard let dest = request.headers[header], dest.lowercased() == value else { throw .notWebIdentity }
    }

    /// The answer of a FedCM endpoint: `body` run after the check, its refusals and failures
    /// turned into FedCM's JSON error (a store failure is the server's, never a page).
    static func answer(_ request: Request, issuer: String, _ body: () throws -> Response) -> Response {
        do {
            try check(request)
            return try body()
        } catch let error as FedCMError {
            return error.response(issuer: issuer)
        } catch let refusal as FedCMRefusal {
            var response = refusal.error.response(issuer: issuer)
            if let origin = refusal.corsOrigin { FedCMCORS.allow(&response, origin: origin) }
            return response
        } catch {
            var response = Response.json(
                raw: #"{"error":{"code":"server_error"}}"#, status: .internalServerError)
            response.headers["Cache-Control"] = "no-store"
            return response
        }
    }
}

/// A refusal after the request's origin was found to be the app's: the browser may read it
/// (CORS for that origin), so the app learns why.
struct FedCMRefusal: Error {
    /// Why.
    let error: FedCMError
    /// The app's origin the answer is shared with.
    let corsOrigin: String?
}

/// CORS on the credentialed endpoints: for the app's own origin only, with credentials.
enum FedCMCORS {
    /// Adds `Access-Control-Allow-Origin: origin` and `Access-Control-Allow-Credentials: true`.
    static func allow(_ response: inout Response, origin: String) {
        response.headers["Access-Control-Allow-Origin"] = origin
        response.headers["Access-Control-Allow-Credentials"] = "true"
        response.headers["Vary"] = "Origin"
    }
}
