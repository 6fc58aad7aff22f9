/// `/assets/passkeys.js`: the WebAuthn calls of the sign-in page and Your Account.
///
/// Progressive enhancement: the passkey forms are `hidden` in the markup and shown only where
/// `PublicKeyCredential` exists, so the password path is all that browsers without it see. On
/// the sign-in page it starts conditional mediation (passkeys offered in the e-mail field's
/// autofill) where the browser supports it, and a modal request from `#passkey-sign-in`. On the
/// page behind a passkey sign-up's mailed link, `#signup-passkey-create` creates the passkey the
/// new account signs in with (`.without-passkeys` explains the way out where it cannot).
enum PasskeyScript {
    static let path = "/assets/passkeys.js"
    static let asset = Assets.Asset(text: text, contentType: "text/javascript; charset=utf-8")
    /// The script's URL with its version.
    static var url: String { path + "?v=" + asset.version }
    /// The tag that loads it.
    static var tag: String { "<script src=\"\(url)\" defer></script>\n" }

    private static let text = """
        "use strict";
        (function () {
          function encode(buffer) {
            var bytes = new Uint8Array(buffer), text = "";
            for (var i = 0; i < bytes.length; i++) { text += String.fromCharCode(bytes[i]); }
            return btoa(text).replace(/\\+/g, "-").replace(/\\//g, "_").replace(/=+$/, "");
          }
          function decode(text) {
            text = text.replace(/-/g, "+").replace(/_/g, "/");
            while (text.length % 4) { text += "="; }
            var raw = atob(text), bytes = new Uint8Array(raw.length);
            for (var i = 0; i < raw.length; i++) { bytes[i] = raw.charCodeAt(i); }
            return bytes.buffer;
          }
          function options(url, body) {
            return fetch(url, { method: "POST", credentials: "same-origin", body: body }).then(function (reply) {
              return reply.json();
            });
          }
          function signIn(form) {
            var field = document.getElementById("passkey-credential");
            var controller = null;
            function start(mediation) {
              if (controller) { controller.abort(); }
              controller = new AbortController();
              var signal = controller.signal;
              return options(form.getAttribute("data-options"), null).then(function (o) {
                var request = { publicKey: { challenge: decode(o.challenge), rpId: o.rpId, timeout: o.timeout,
                  userVerification: o.userVerification }, signal: signal };
                if (mediation) { request.mediation = mediation; }
                return navigator.credentials.get(request);
              }).then(function (credential) {
                if (!credential) { return; }
                var r = credential.response;
                field.value = JSON.stringify({ id: encode(credential.rawId), clientDataJSON: encode(r.clientDataJSON),
                  authenticatorData: encode(r.authenticatorData), signature: encode(r.signature),
                  userHandle: r.userHandle ? encode(r.userHandle) : "" });
                var remember = document.getElementById("remember_me");
                if (remember && remember.checked) {
                  var kept = document.createElement("input");
                  kept.type = "hidden"; kept.name = "remember_me"; kept.value = "1";
                  form.appendChild(kept);
                }
                form.submit();
              }).catch(function () {});
            }
            document.getElementById("passkey-sign-in").addEventListener("click", function () { start(null); });
            if (PublicKeyCredential.isConditionalMediationAvailable) {
              PublicKeyCredential.isConditionalMediationAvailable().then(function (available) {
                if (available) { start("conditional"); }
              });
            }
          }
          function add(form) {
            var error = document.getElementById("passkey-error");
            document.getElementById("passkey-add").addEventListener("click", function () {
              error.hidden = true;
              options(form.getAttribute("data-options"), new URLSearchParams(new FormData(form))).then(function (o) {
                if (o.error === "reauthenticate") { window.location.href = o.location; return null; }
                return navigator.credentials.create({ publicKey: { rp: o.rp,
                  user: { id: decode(o.user.id), name: o.user.name, displayName: o.user.displayName },
                  challenge: decode(o.challenge), pubKeyCredParams: o.pubKeyCredParams, timeout: o.timeout,
                  excludeCredentials: o.excludeCredentials.map(function (c) { return { type: c.type, id: decode(c.id) }; }),
                  authenticatorSelection: o.authenticatorSelection, attestation: o.attestation } });
              }).then(function (credential) {
                if (!credential) { return; }
                form.querySelector("[name=passkey_credential]").value = JSON.stringify({ id: encode(credential.rawId),
                  clientDataJSON: encode(credential.response.clientDataJSON),
                  attestationObject: encode(credential.response.attestationObject) });
                form.submit();
              }).catch(function () { error.hidden = false; });
            });
          }
          function signUp(form) {
            var error = document.getElementById("passkey-error");
            document.getElementById("signup-passkey-create").addEventListener("click", function () {
              error.hidden = true;
              var handle = null;
              options(form.getAttribute("data-options"), new URLSearchParams(new FormData(form))).then(function (o) {
                if (o.error) { throw new Error(o.error); }
                handle = o.user.id;
                return navigator.credentials.create({ publicKey: { rp: o.rp,
                  user: { id: decode(o.user.id), name: o.user.name, displayName: o.user.displayName },
                  challenge: decode(o.challenge), pubKeyCredParams: o.pubKeyCredParams, timeout: o.timeout,
                  excludeCredentials: [], authenticatorSelection: o.authenticatorSelection,
                  attestation: o.attestation } });
              }).then(function (credential) {
                if (!credential) { return; }
                form.querySelector("[name=passkey_user]").value = handle;
                form.querySelector("[name=passkey_credential]").value = JSON.stringify({ id: encode(credential.rawId),
                  clientDataJSON: encode(credential.response.clientDataJSON),
                  attestationObject: encode(credential.response.attestationObject) });
                form.submit();
              }).catch(function () { error.hidden = false; });
            });
          }
          document.addEventListener("DOMContentLoaded", function () {
            if (!window.PublicKeyCredential || !navigator.credentials) { return; }
            var shown = document.querySelectorAll(".needs-passkeys");
            for (var i = 0; i < shown.length; i++) { shown[i].hidden = false; }
            var others = document.querySelectorAll(".without-passkeys");
            for (var j = 0; j < others.length; j++) { others[j].hidden = true; }
            var login = document.getElementById("passkey-form");
            if (login) { signIn(login); }
            var account = document.getElementById("passkey-add-form");
            if (account) { add(account); }
            var signup = document.getElementById("signup-passkey-form");
            if (signup) { signUp(signup); }
          });
        })();

        """
}
