import Foundation

#if canImport(Darwin)
    /// The LWA-shaped completion handler: exactly one of `result` (success), `userDidCancel`
    /// (true when the person cancelled) and `error` is meaningful. On Apple platforms it is
    /// `@MainActor`, so UI code in it may touch views and the compiler knows it.
    public typealias AuthorizationHandler = @MainActor @Sendable (AuthorizeResult?, Bool, AuthorizationError?) -> Void
#else
    /// The LWA-shaped completion handler: exactly one of `result` (success), `userDidCancel`
    /// (true when the person cancelled) and `error` is meaningful.
    public typealias AuthorizationHandler = @Sendable (AuthorizeResult?, Bool, AuthorizationError?) -> Void
#endif

extension AuthorizationManager {
    /// Authorizes as ``authorize(_:)`` does and reports through `handler`, as Login with
    /// Amazon's `authorize:withHandler:` does: `(result, false, nil)` on success,
    /// `(nil, true, nil)` when the person cancelled, `(nil, false, error)` otherwise.
    ///
    /// The handler runs on the main actor on Apple platforms (UI code may touch views there);
    /// elsewhere, where a command-line app usually runs no main loop, it runs on the task.
    /// - Returns: the task, so the app can cancel it (reported as an error with
    ///   ``AuthorizationError/Code/cancelled``, not as the person's cancel).
    @discardableResult
    public func authorize(_ request: AuthorizeRequest, handler: @escaping AuthorizationHandler) -> Task<Void, Never> {
        Task {
            let outcome: (AuthorizeResult?, Bool, AuthorizationError?)
            do throws(AuthorizationError) {
                outcome = (try await authorize(request), false, nil)
            } catch  where error.code == .userCancelled {
                outcome = (nil, true, nil)
            } catch {
                outcome = (nil, false, error)
            }
            #if canImport(Darwin)
                await MainActor.run { handler(outcome.0, outcome.1, outcome.2) }
            #else
                handler(outcome.0, outcome.1, outcome.2)
            #endif
        }
    }
}
