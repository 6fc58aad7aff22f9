import Foundation
import PorticoHTTP
import PorticoStore

/// Renders a ``PageProblem`` as a page a person understands: what happened, and what to do.
enum ErrorPage {
    /// The page for `problem`, in `language`.
    static func response(for problem: PageProblem, language: PageLanguage) -> Response {
        let (title, message) = words(for: problem)
        var content = "<h1>\(HTML.escape(title[language]))</h1>\n"
        content += "<div class=\"alert\" role=\"alert\"><p>\(HTML.escape(message[language]))</p></div>\n"
        content += "<p class=\"small\">\(HTML.escape(advice(for: problem)[language]))</p>\n"
        var response = PageLayout.page(
            title: title[language], content: content, status: problem.status, language: language)
        if problem == .temporarilyUnavailable { response.headers["Retry-After"] = String(retryAfterSeconds) }
        if problem == .busy || problem == .overloaded {
            response.headers["Retry-After"] = String(busyRetryAfterSeconds)
        }
        return response
    }

    /// The `Retry-After` of the page shown while the database is away: long enough for a
    /// PostgreSQL restart or failover, short enough that a person reloading is not kept waiting.
    static let retryAfterSeconds = 5

    /// The `Retry-After` of the page shown when too many passwords are being checked at once:
    /// a flood is shed second by second, and a person's retry should not wait longer.
    static let busyRetryAfterSeconds = 1

    /// Runs `body`, turning a thrown ``PageProblem`` into its page (in the language `request`
    /// asks for) and any other error into the generic failure page (logged to stderr), so no
    /// handler can answer a bare 500.
    static func guarding(_ request: Request, _ body: () async throws -> Response) async -> Response {
        do {
            return try await body()
        } catch {
            return response(for: error, request: request)
        }
    }

    /// ``guarding(_:_:)`` for a handler that runs on the thread that read the request.
    static func guarding(_ request: Request, _ body: () throws -> Response) -> Response {
        do {
            return try body()
        } catch {
            return response(for: error, request: request)
        }
    }

    /// The page for an error a handler threw.
    private static func response(for error: any Error, request: Request) -> Response {
        switch error {
        case let problem as PageProblem:
            return response(for: problem, language: request.pageLanguage())
        case let error as StoreError where error.isTemporary:
            log(error, path: request.path)
            return response(for: .temporarilyUnavailable, language: request.pageLanguage())
        case let error as StoreError:
            log(error, path: request.path)
            // A value the database cannot hold that a check before the store missed is the
            // request's fault, not the server's.
            guard case .invalidArgument = error else {
                return response(for: .serverFailure, language: request.pageLanguage())
            }
            return response(for: .malformedRequest(appName: nil), language: request.pageLanguage())
        default:
            log(error, path: request.path)
            return response(for: .serverFailure, language: request.pageLanguage())
        }
    }

    /// One JSON line naming the path (never the query, which may carry tokens) and the error.
    private static func log(_ error: any Error, path: String) {
        let line =
            #"{"level":"error","message":"page handler failed","path":\#(jsonString(path)),"error":\#(jsonString("\(error)"))}"#
            + "\n"
        FileHandle.standardError.write(Data(line.utf8))
    }

    private static func jsonString(_ text: String) -> String {
        var escaped = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": escaped += "\\\""
            case "\\": escaped += "\\\\"
            case _ where scalar.value < 0x20: escaped += String(format: "\\u%04x", scalar.value)
            default: escaped.unicodeScalars.append(scalar)
            }
        }
        return escaped + "\""
    }

    private static let platform = PageLayout.platformName

    private static func words(for problem: PageProblem) -> (title: Localized, message: Localized) {
        let cannotReturn = { (app: String) in
            Localized("We can't send you back to \(app)", zh: "我们无法将您送回 \(app)")
        }
        switch problem {
        case .unknownClient:
            return (
                Localized("We can't sign you in to this app", zh: "我们无法让您登录此应用"),
                Localized(
                    "The app that sent you here is not registered with \(platform), so we can't sign you in to it.",
                    zh: "将您带到这里的应用未在 \(platform) 注册，因此我们无法让您登录。")
            )
        case .unusableClientMetadata(let reason):
            return (
                Localized("We can't sign you in to this app", zh: "我们无法让您登录此应用"),
                Localized(
                    "The app that sent you here describes itself at an address we could not use: \(reason).",
                    zh: "将您带到这里的应用在一个我们无法使用的地址描述自己：\(reason)。")
            )
        case .suspendedClient(let app):
            return (
                Localized("\(app) is suspended", zh: "\(app) 已被暂停"),
                Localized(
                    "\(platform) has suspended \(app), so nobody can sign in to it for now. Nothing was shared with it.",
                    zh: "\(platform) 已暂停 \(app)，目前任何人都无法登录该应用。没有任何信息被分享给它。")
            )
        case .unverifiedAppLimit(let app):
            return (
                Localized("\(app) can't take new people yet", zh: "\(app) 暂时无法接受新用户"),
                Localized(
                    "\(platform) has not verified \(app) yet, and until it does, only "
                        + "\(UnverifiedAppLimit.maximumPeople) people can sign in to it. That many already have, "
                        + "so we stopped here. Nothing was shared with it.",
                    zh: "\(platform) 尚未验证 \(app)，在验证之前，最多只能有 \(UnverifiedAppLimit.maximumPeople) 人登录该应用。"
                        + "这个人数已满，因此我们在此停止。没有任何信息被分享给它。")
            )
        case .redirectNotRegistered(let app):
            return (
                cannotReturn(app),
                Localized(
                    "\(app) asked us to send you to an address it has not registered with \(platform). "
                        + "To keep your account safe, we stopped here.",
                    zh: "\(app) 要求我们将您送往一个未在 \(platform) 注册的地址。为了保护您的账户安全，我们在此停止。")
            )
        case .redirectMissing(let app):
            return (
                cannotReturn(app),
                Localized(
                    "\(app) did not say where to send you after signing in, and it has more than one address.",
                    zh: "\(app) 没有说明登录后将您送往何处，而它有多个地址。")
            )
        case .redirectNotAllowed(let app):
            return (
                cannotReturn(app),
                Localized(
                    "\(app) asked us to send you to an address that this kind of app may not use. "
                        + "To keep your account safe, we stopped here.",
                    zh: "\(app) 要求我们将您送往此类应用不可使用的地址。为了保护您的账户安全，我们在此停止。")
            )
        case .malformedRequest(let app):
            return (
                Localized("This sign-in request is not valid", zh: "此登录请求无效"),
                Localized(
                    "\(app.map { "The request from \($0)" } ?? "The request") was not put together correctly.",
                    zh: "\(app.map { "来自 \($0) 的请求" } ?? "该请求")格式不正确。")
            )
        case .expiredRequest(let app):
            return (
                Localized("This sign-in request has expired", zh: "此登录请求已过期"),
                Localized(
                    "Too much time has passed since \(app ?? "the app") asked you to sign in.",
                    zh: "距离\(app.map { " \($0) " } ?? "应用")请求您登录已经过去太久。")
            )
        case .invalidRequest:
            return (
                Localized("This sign-in request is not valid", zh: "此登录请求无效"),
                Localized(
                    "The sign-in page was opened without a valid request from an app.",
                    zh: "登录页面被打开时没有来自应用的有效请求。")
            )
        case .forgedForm(let app):
            return (
                Localized("We couldn't confirm that this came from you", zh: "我们无法确认这是您本人的操作"),
                Localized(
                    "The form you sent did not carry the security check it should have"
                        + (app.map { " for \($0)" } ?? "")
                        + ". This can happen when a page was open for a long time, or when cookies are blocked.",
                    zh: "您提交的表单\(app.map { "（\($0)）" } ?? "")缺少应有的安全校验。"
                        + "页面打开时间过长或 Cookie 被阻止时可能会出现这种情况。")
            )
        case .invalidLogoutRequest(let app):
            return (
                Localized("This sign-out request is not valid", zh: "此退出请求无效"),
                Localized(
                    "\(app.map { "The request from \($0)" } ?? "The app's request") to sign you out could not be "
                        + "checked, so we did not act on it.",
                    zh: "\(app.map { "来自 \($0) 的" } ?? "应用发来的")退出请求无法通过校验，因此我们没有执行。")
            )
        case .serverFailure:
            return (
                Localized("Something went wrong on our side", zh: "我们这边出了问题"),
                Localized(
                    "We could not finish this request. Nothing was shared with any app.",
                    zh: "我们无法完成此请求。没有任何信息被分享给任何应用。")
            )
        case .temporarilyUnavailable:
            return (
                Localized("\(platform) is briefly unavailable", zh: "\(platform) 暂时无法使用"),
                Localized(
                    "We can't reach our database for a moment, so we could not finish this request. "
                        + "Nothing was shared with any app.",
                    zh: "我们暂时无法连接数据库，因此未能完成此请求。没有任何信息被分享给任何应用。")
            )
        case .busy:
            return (
                Localized("\(platform) is very busy", zh: "\(platform) 当前非常繁忙"),
                Localized(
                    "Too many people are signing in at this moment, so we did not check your password yet. "
                        + "Nothing was changed and nothing was shared with any app.",
                    zh: "此刻正在登录的人太多，因此我们尚未核对您的密码。没有任何更改，也没有任何信息被分享给任何应用。")
            )
        case .overloaded:
            return (
                Localized("\(platform) is very busy", zh: "\(platform) 当前非常繁忙"),
                Localized(
                    "So many requests are arriving at this moment that we could not open this page yet. "
                        + "Nothing was changed and nothing was shared with any app.",
                    zh: "此刻收到的请求太多，我们暂时无法打开此页面。没有任何更改，也没有任何信息被分享给任何应用。")
            )
        }
    }

    private static func advice(for problem: PageProblem) -> Localized {
        switch problem {
        case .suspendedClient, .unverifiedAppLimit:
            // Nothing the developer can fix in a request: the operator decides.
            Localized(
                "Go back to the app and try again later. If you are its developer, ask \(platform)'s operator "
                    + "about its standing.",
                zh: "请返回应用，稍后再试。如果您是该应用的开发者，请联系 \(platform) 的运营方了解其状态。")
        case .unknownClient, .unusableClientMetadata, .redirectNotRegistered, .redirectMissing, .redirectNotAllowed,
            .malformedRequest:
            Localized(
                "If you are the app's developer, check its client ID and redirect address. Otherwise, "
                    + "go back to the app and contact its support.",
                zh: "如果您是该应用的开发者，请检查其客户端 ID 和重定向地址。否则，请返回应用并联系其支持团队。")
        case .expiredRequest, .invalidRequest:
            Localized("Go back to the app and choose to sign in again.", zh: "请返回应用并重新选择登录。")
        case .forgedForm:
            Localized(
                "Make sure cookies are allowed for this site, then go back to the app and sign in again.",
                zh: "请确认此网站允许使用 Cookie，然后返回应用重新登录。")
        case .invalidLogoutRequest:
            Localized(
                "You can still sign out of \(platform) in Your Account (/account).",
                zh: "您仍可以在“您的账户”（/account）中退出 \(platform)。")
        case .serverFailure:
            Localized("Please try again in a moment.", zh: "请稍后再试。")
        case .temporarilyUnavailable:
            Localized(
                "Please wait a few seconds, then reload this page or go back and try again.",
                zh: "请稍等几秒，然后刷新此页面，或返回后重试。")
        case .busy:
            Localized(
                "Please go back and send the form again in a moment.", zh: "请稍候片刻，然后返回并重新提交表单。")
        case .overloaded:
            Localized(
                "Please wait a moment, then reload this page or go back and try again.",
                zh: "请稍候片刻，然后刷新此页面，或返回后重试。")
        }
    }
}
