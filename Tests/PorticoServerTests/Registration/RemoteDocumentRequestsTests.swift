import Foundation
import PorticoHTTP
import Testing

@testable import PorticoServer

/// Which back-channel requests go to the worker pool on SQLite because they might fetch an
/// app's document (``RemoteDocumentRequests``): an assertion, a request object, or a client
/// named by a URL, however the form spells it; and not the common forms.
@Suite struct RemoteDocumentRequestsTests {
    static func request(_ body: String, authorization: String? = nil) -> Request {
        var headers: HTTPHeaders = ["Content-Type": "application/x-www-form-urlencoded"]
        if let authorization { headers["Authorization"] = authorization }
        return Request(
            method: .post, path: "/oauth/token", headers: headers, body: Array(body.utf8))
    }

    static func basic(_ user: String) -> String {
        "Basic " + Data("\(user):secret".utf8).base64EncodedString()
    }

    @Test(arguments: [
        "grant_type=client_credentials&client_assertion_type=x&client_assertion=a.b.c",
        "grant_type=client_credentials&client%5Fassertion=a.b.c",
        "client_id=app&request=a.b.c&response_type=code",
        "grant_type=refresh_token&refresh_token=t&client_id=https%3A%2F%2Fagent.example%2Fclient.json",
        "grant_type=refresh_token&refresh_token=t&client%5Fid=https://agent.example/client.json",
    ])
    func aFormThatCouldFetchGoesToTheWorkerPool(_ body: String) {
        #expect(RemoteDocumentRequests.mayFetch(Self.request(body)))
    }

    @Test func aBasicUserThatIsAURLGoesToTheWorkerPool() {
        let request = Self.request(
            "grant_type=client_credentials", authorization: Self.basic("https%3A%2F%2Fagent.example%2Fclient.json"))
        #expect(RemoteDocumentRequests.mayFetch(request))
    }

    @Test(arguments: [
        "grant_type=client_credentials&scope=orders",
        "grant_type=refresh_token&refresh_token=abc.def&client_id=Xy12",
        "grant_type=authorization_code&code=c&redirect_uri=https%3A%2F%2Fapp.example%2Fcb&client_id=Xy12",
    ])
    func theCommonFormsStayWhereTheyRun(_ body: String) {
        #expect(!RemoteDocumentRequests.mayFetch(Self.request(body, authorization: Self.basic("Xy12"))))
    }
}
