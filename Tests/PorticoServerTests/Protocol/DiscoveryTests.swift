import Foundation
import PorticoCrypto
import PorticoStore
import PorticoTesting
import Testing

@Suite struct DiscoveryTests {
    @Test func bothMetadataPathsAdvertiseTheEndpointsAndCapabilities() async throws {
        try await ProviderHarness.with { harness in
            try harness.store.insert(ProductScope(name: "orders:read", description: "See your orders"))
            let openID = try await harness.request("GET", "/.well-known/openid-configuration")
            let oauth = try await harness.request("GET", "/.well-known/oauth-authorization-server")
            #expect(openID.status == 200)
            #expect(oauth.status == 200)
            #expect(openID.body == oauth.body)
            #expect(openID.header("Content-Type") == "application/json")
            #expect(openID.header("Cache-Control")?.contains("max-age=") == true)
            let document = openID.json
            let issuer = harness.issuer
            #expect(document["issuer"] == .string(issuer))
            #expect(document["authorization_endpoint"] == .string(issuer + "/oauth/authorize"))
            #expect(document["token_endpoint"] == .string(issuer + "/oauth/token"))
            #expect(document["userinfo_endpoint"] == .string(issuer + "/oauth/userinfo"))
            #expect(document["profile_endpoint"] == .string(issuer + "/user/profile"))
            #expect(document["jwks_uri"] == .string(issuer + "/oauth/jwks"))
            #expect(document["revocation_endpoint"] == .string(issuer + "/oauth/revoke"))
            #expect(document["introspection_endpoint"] == .string(issuer + "/oauth/introspect"))
            #expect(document["device_authorization_endpoint"] == .string(issuer + "/oauth/device_authorization"))
            #expect(document["end_session_endpoint"] == .string(issuer + "/oauth/logout"))
            #expect(document["response_types_supported"] == ["code"])
            #expect(document["response_modes_supported"] == ["query"])
            #expect(document["code_challenge_methods_supported"] == ["S256"])
            #expect(
                document["grant_types_supported"] == [
                    "authorization_code", "refresh_token", "client_credentials",
                    "urn:ietf:params:oauth:grant-type:device_code", "urn:ietf:params:oauth:grant-type:token-exchange",
                ])
            #expect(
                document["token_endpoint_auth_methods_supported"] == [
                    "client_secret_basic", "client_secret_post", "private_key_jwt", "none",
                ])
            #expect(
                document["introspection_endpoint_auth_methods_supported"] == [
                    "client_secret_basic", "client_secret_post", "private_key_jwt",
                ])
            #expect(document["revocation_endpoint_auth_methods_supported"]?.arrayValue?.count == 4)
            #expect(document["subject_types_supported"] == ["public", "pairwise"])
            #expect(document["native_sso_supported"] == true)
            #expect(document["id_token_signing_alg_values_supported"] == ["RS256", "ES256", "EdDSA", "PS256"])
            #expect(document["authorization_response_iss_parameter_supported"] == true)
            #expect(document["request_parameter_supported"] == true)
            #expect(document["request_uri_parameter_supported"] == false)
            #expect(document["pushed_authorization_request_endpoint"] == .string(issuer + "/oauth/par"))
            #expect(document["require_pushed_authorization_requests"] == false)
            #expect(document["request_object_signing_alg_values_supported"]?.arrayValue?.contains("ES256") == true)
            #expect(document["request_object_signing_alg_values_supported"]?.arrayValue?.contains("none") == false)
            let scopes = document["scopes_supported"]?.arrayValue?.compactMap(\.stringValue) ?? []
            for scope in ["openid", "profile", "profile:user_id", "postal_code", "email", "orders:read"] {
                #expect(scopes.contains(scope))
            }
            let claims = document["claims_supported"]?.arrayValue?.compactMap(\.stringValue) ?? []
            for claim in ["sub", "name", "email", "email_verified", "postal_code", "user_id", "nonce", "at_hash"] {
                #expect(claims.contains(claim))
            }
        }
    }

    @Test func jwksPublishesEveryKeyWithIDAlgorithmAndUse() async throws {
        try await ProviderHarness.with { harness in
            let reply = try await harness.request("GET", "/oauth/jwks")
            #expect(reply.status == 200)
            #expect(reply.header("Content-Type") == "application/json")
            #expect(reply.header("Cache-Control")?.contains("max-age=") == true)
            let keys = reply.json["keys"]?.arrayValue?.compactMap(\.objectValue) ?? []
            #expect(keys.count == 4)
            #expect(Set(keys.compactMap { $0["alg"]?.stringValue }) == ["RS256", "ES256", "EdDSA", "PS256"])
            for key in keys {
                #expect(key["kid"]?.stringValue?.isEmpty == false)
                #expect(key["use"] == "sig")
                #expect(key["d"] == nil)
            }
            _ = try await harness.jwksVerifier()
        }
    }

    @Test func theNonOAuthMethodsAndPathsNeverGiveA500() async throws {
        try await ProviderHarness.with { harness in
            for (method, path) in [
                ("GET", "/oauth/token"), ("POST", "/.well-known/openid-configuration"), ("DELETE", "/oauth/userinfo"),
                ("PUT", "/oauth/revoke"), ("GET", "/oauth/introspect"),
            ] {
                let reply = try await harness.request(method, path)
                #expect(reply.status < 500, "\(method) \(path)")
            }
        }
    }
}
