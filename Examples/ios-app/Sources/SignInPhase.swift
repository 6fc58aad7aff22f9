import PorticoKit

/// What ``SignInView`` shows: the button, progress, the signed-in person, or a failure.
enum SignInPhase: Sendable {
    /// Nobody signed in: the branded button.
    case signedOut
    /// A sign-in or sign-out under way, with what it is doing.
    case working(String)
    /// Signed in, with the person's profile.
    case signedIn(User)
    /// The last attempt failed; the button is shown again beside the reason.
    case failed(String)
}
