/// The web SDK's source, `portico.js`: hand-written, no dependencies, no build step, so that
/// what a web developer pins with an SRI hash is exactly what is read here.
///
/// Changing one character changes the file's SHA-384, so the README's `<script integrity>`
/// line must change with it (a browser test compares the two), and so must ``WebSDK/version``:
/// the versioned URL is cached as immutable for a year.
enum WebSDKScript {
    /// The script's text.
    static let text = #"""
        /*! Portico web SDK 1.0.0: "Login with Portico" on the web. No dependencies. */
        (function () {
          "use strict";
          var VERSION = "1.0.0";
          var STORE = "portico.sdk.";
          var MESSAGE = "portico:authorization-response";
          var script = document.currentScript;
          var settings = { issuer: issuerFromScript() };
          var WORDS = {
            en: { label: "Login with Portico", hint: "Opens Portico to sign you in to this app.", locales: "en" },
            zh: { label: "使用 Portico 登录", hint: "打开 Portico 以登录此应用。", locales: "zh-Hans" }
          };

          // The issuer is where this script came from: <issuer>/sdk/[version/]portico.js.
          function issuerFromScript() {
            if (!script || !script.src) { return null; }
            var issuer = script.src.replace(/\/sdk\/(?:[^\/?#]+\/)?portico\.js(?:[?#].*)?$/, "");
            return issuer === script.src ? null : issuer;
          }

          function PorticoError(error, description, extra) {
            var failure = new Error(description ? error + ": " + description : error);
            failure.name = "PorticoError";
            failure.error = error;
            failure.error_description = description || null;
            if (extra) { for (var key in extra) { failure[key] = extra[key]; } }
            return failure;
          }

          function base64url(bytes) {
            var text = "";
            for (var i = 0; i < bytes.length; i++) { text += String.fromCharCode(bytes[i]); }
            return btoa(text).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
          }

          function randomToken() {
            var bytes = new Uint8Array(32);
            window.crypto.getRandomValues(bytes);
            return base64url(bytes);
          }

          // PKCE S256 (RFC 7636): the challenge is base64url(SHA-256(verifier)).
          function challengeFor(verifier) {
            if (!window.crypto || !window.crypto.subtle) {
              return Promise.reject(PorticoError("unsupported_browser",
                "PKCE needs crypto.subtle, which browsers offer only on https:// pages and localhost"));
            }
            return window.crypto.subtle.digest("SHA-256", new TextEncoder().encode(verifier))
              .then(function (digest) { return base64url(new Uint8Array(digest)); });
          }

          function checked(options) {
            if (!settings.issuer) {
              throw PorticoError("invalid_request", "no issuer: load portico.js from Portico or call Portico.configure({issuer})");
            }
            if (!options || !options.clientId) { throw PorticoError("invalid_request", "clientId is required"); }
            var mode = options.mode || "auto";
            if (["auto", "fedcm", "popup", "redirect"].indexOf(mode) < 0) {
              throw PorticoError("invalid_request", "mode must be 'fedcm', 'popup' or 'redirect'");
            }
            if (mode !== "fedcm") {
              if (!options.redirectUri) { throw PorticoError("invalid_request", "redirectUri is required"); }
              if (new URL(options.redirectUri, location.href).origin !== location.origin) {
                throw PorticoError("invalid_request", "redirectUri must be on this page's origin (" + location.origin + ")");
              }
            }
            return mode;
          }

          function authorizeURL(options, state, challenge) {
            var query = new URLSearchParams();
            query.set("response_type", "code");
            query.set("client_id", options.clientId);
            query.set("redirect_uri", options.redirectUri);
            query.set("scope", options.scope || "openid");
            query.set("state", state);
            query.set("code_challenge", challenge);
            query.set("code_challenge_method", "S256");
            if (options.nonce) { query.set("nonce", options.nonce); }
            if (options.uiLocales) { query.set("ui_locales", options.uiLocales); }
            if (options.prompt) { query.set("prompt", options.prompt); }
            return settings.issuer + "/oauth/authorize?" + query.toString();
          }

          // The authorization response of the popup or the redirect, as the app's code wants it.
          function outcome(data, expected) {
            if (data.iss && data.iss !== settings.issuer) {
              throw PorticoError("invalid_response", "the answer names another issuer: " + data.iss);
            }
            if (data.error) { throw PorticoError(data.error, data.error_description); }
            if (!data.code) { throw PorticoError("invalid_response", "the answer carries neither a code nor an error"); }
            return { code: data.code, codeVerifier: expected.codeVerifier, redirectUri: expected.redirectUri };
          }

          // FedCM: the browser's own sign-in dialog (config at <issuer>/fedcm/config.json).
          function hasFedCM() {
            return typeof window.IdentityCredential !== "undefined" && !!navigator.credentials;
          }

          function viaFedCM(options) {
            var verifier = randomToken();
            return challengeFor(verifier).then(function (challenge) {
              var provider = {
                configURL: settings.issuer + "/fedcm/config.json",
                clientId: options.clientId,
                params: { code_challenge: challenge, code_challenge_method: "S256", scope: options.scope || "openid" }
              };
              // Chromium takes the nonce inside params (a top-level nonce is going away).
              if (options.nonce) { provider.params.nonce = options.nonce; }
              return navigator.credentials.get({ identity: { context: "signin", providers: [provider] }, mediation: "optional" });
            }).then(function (credential) {
              if (!credential || !credential.token) { throw PorticoError("invalid_response", "FedCM gave no token"); }
              // A FedCM code is redeemed without redirect_uri.
              return { code: credential.token, codeVerifier: verifier, redirectUri: null };
            }, function (failure) {
              if (failure && failure.name === "PorticoError") { throw failure; }
              // An error the provider answered ({"error": {"code", "url"}}); a DOMException's code is a number.
              if (failure && typeof failure.code === "string" && failure.code) {
                throw PorticoError(failure.code, failure.message, { url: failure.url || null });
              }
              if (failure && failure.name === "AbortError") { throw PorticoError("aborted", "the sign-in was aborted"); }
              // Disabled, not supported, blocked by policy, or no account at Portico in this browser.
              throw PorticoError("fedcm_unavailable", (failure && failure.message) || "FedCM failed", { fedcmUnavailable: true });
            });
          }

          // A popup, opened at once (still inside the click) and sent to Portico once PKCE is ready.
          function openPopup() {
            var width = 480, height = 680;
            var left = Math.max(0, (window.screenX || 0) + ((window.outerWidth || width) - width) / 2);
            var top = Math.max(0, (window.screenY || 0) + ((window.outerHeight || height) - height) / 2);
            try {
              return window.open("", "portico-authorize",
                "popup=yes,width=" + width + ",height=" + height + ",left=" + Math.round(left) + ",top=" + Math.round(top));
            } catch (blocked) {
              return null;
            }
          }

          function viaPopup(options, popup) {
            var verifier = randomToken();
            var state = randomToken();
            var expected = { codeVerifier: verifier, redirectUri: options.redirectUri };
            return challengeFor(verifier).then(function (challenge) {
              return new Promise(function (resolve, reject) {
                var done = false;
                var timer = null;
                function finish(settle, value) {
                  if (done) { return; }
                  done = true;
                  window.removeEventListener("message", receive);
                  clearInterval(timer);
                  try { if (!popup.closed) { popup.close(); } } catch (ignored) { /* already gone */ }
                  settle(value);
                }
                // Only the app's own origin (the redirect page) and only this sign-in's state.
                function receive(event) {
                  if (event.origin !== location.origin) { return; }
                  var data = event.data;
                  if (!data || data.type !== MESSAGE || data.state !== state) { return; }
                  try {
                    finish(resolve, outcome(data, expected));
                  } catch (failure) {
                    finish(reject, failure);
                  }
                }
                window.addEventListener("message", receive);
                timer = setInterval(function () {
                  if (done || !popup.closed) { return; }
                  // A message posted just before the popup closed itself is still on its way.
                  setTimeout(function () {
                    finish(reject, PorticoError("popup_closed", "the sign-in window was closed before the sign-in finished"));
                  }, 300);
                  clearInterval(timer);
                }, 250);
                popup.location.href = authorizeURL(options, state, challenge);
              });
            }, function (failure) {
              try { popup.close(); } catch (ignored) { /* nothing to close */ }
              throw failure;
            });
          }

          // A full-page redirect; handleRedirectCallback() on the return page finishes it.
          function viaRedirect(options) {
            var verifier = randomToken();
            var state = randomToken();
            return challengeFor(verifier).then(function (challenge) {
              sessionStorage.setItem(STORE + "redirect." + state, JSON.stringify({
                codeVerifier: verifier, redirectUri: options.redirectUri, issuer: settings.issuer
              }));
              location.assign(authorizeURL(options, state, challenge));
              return new Promise(function () { /* this page is going away */ });
            });
          }

          function authorize(options) {
            var mode;
            try {
              mode = checked(options);
            } catch (failure) {
              return Promise.reject(failure);
            }
            if (mode === "fedcm") { return viaFedCM(options); }
            if (mode === "redirect") { return viaRedirect(options); }
            if (mode === "popup") {
              var forced = openPopup();
              return forced ? viaPopup(options, forced)
                : Promise.reject(PorticoError("popup_blocked", "the browser blocked the sign-in window"));
            }
            var popupOrRedirect = function () {
              var popup = openPopup();
              return popup ? viaPopup(options, popup) : viaRedirect(options);
            };
            if (!hasFedCM()) { return popupOrRedirect(); }
            return viaFedCM(options).catch(function (failure) {
              if (failure && failure.fedcmUnavailable) { return popupOrRedirect(); }
              throw failure;
            });
          }

          function queryOf(url) {
            var query = new URL(url || location.href, location.href).searchParams;
            return {
              state: query.get("state"), code: query.get("code"), error: query.get("error"),
              error_description: query.get("error_description"), iss: query.get("iss")
            };
          }

          function handleRedirectCallback(url) {
            var data = queryOf(url);
            var key = STORE + "redirect." + data.state;
            var saved = data.state ? sessionStorage.getItem(key) : null;
            if (!saved) {
              return Promise.reject(PorticoError("invalid_state", "this page's state is not one of a sign-in started here"));
            }
            sessionStorage.removeItem(key);
            var expected = JSON.parse(saved);
            if (!url && window.history && history.replaceState) {
              history.replaceState(history.state, "", location.pathname + location.hash);
            }
            try {
              return Promise.resolve(outcome(data, expected));
            } catch (failure) {
              return Promise.reject(failure);
            }
          }

          // On the redirect page inside the popup: hand the answer to the opener, on this origin only.
          function answerOpener() {
            var data = queryOf();
            if (!data.state || !(data.code || data.error)) { return false; }
            if (!window.opener || window.opener === window) { return false; }
            if (sessionStorage.getItem(STORE + "redirect." + data.state)) { return false; }
            data.type = MESSAGE;
            try {
              window.opener.postMessage(data, location.origin);
            } catch (ignored) {
              return false;
            }
            window.close();
            return true;
          }

          function clearStored() {
            for (var i = sessionStorage.length - 1; i >= 0; i--) {
              var key = sessionStorage.key(i);
              if (key && key.indexOf(STORE) === 0) { sessionStorage.removeItem(key); }
            }
          }

          // RP-initiated logout at <issuer>/oauth/logout; without arguments, forgets local state only.
          function signOut(options) {
            clearStored();
            options = options || {};
            if (!options.idTokenHint && !options.postLogoutRedirectUri) { return Promise.resolve(); }
            if (!settings.issuer) { return Promise.reject(PorticoError("invalid_request", "no issuer")); }
            var query = new URLSearchParams();
            if (options.idTokenHint) { query.set("id_token_hint", options.idTokenHint); }
            if (options.clientId) { query.set("client_id", options.clientId); }
            if (options.postLogoutRedirectUri) { query.set("post_logout_redirect_uri", options.postLogoutRedirectUri); }
            if (options.state) { query.set("state", options.state); }
            if (options.uiLocales) { query.set("ui_locales", options.uiLocales); }
            location.assign(settings.issuer + "/oauth/logout?" + query.toString());
            return new Promise(function () { /* this page is going away */ });
          }

          function configure(options) {
            if (options && options.issuer) { settings.issuer = String(options.issuer).replace(/\/+$/, ""); }
            return { issuer: settings.issuer };
          }

          var Portico = {
            version: VERSION,
            configure: configure,
            authorize: authorize,
            handleRedirectCallback: handleRedirectCallback,
            signOut: signOut,
            popupCallbackAnswered: answerOpener()
          };
          window.Portico = Portico;

          // <portico-login-button client-id scope redirect-uri lang="en|zh" [nonce] [mode]>
          var STYLE = ":host{display:inline-block}" +
            "button{display:inline-flex;align-items:center;gap:.6em;font:600 1rem/1.2 system-ui,sans-serif;" +
            "color:#fff;background:#1c4a9e;border:0;border-radius:.5rem;padding:.7em 1.2em;cursor:pointer;min-height:44px}" +
            "button:hover{background:#163c82}button:focus-visible{outline:3px solid #f5a623;outline-offset:2px}" +
            "button[aria-busy=true]{opacity:.8;cursor:progress}" +
            ".mark{display:inline-grid;place-items:center;width:1.5em;height:1.5em;border-radius:.3em;" +
            "background:#fff;color:#1c4a9e;font-weight:800}.hint{display:none}";

          function wordsFor(element) {
            var source = element.closest("[lang]");
            var tag = (element.getAttribute("lang") || (source && source.getAttribute("lang")) || "en").toLowerCase();
            return tag.indexOf("zh") === 0 ? WORDS.zh : WORDS.en;
          }

          if (window.customElements && !customElements.get("portico-login-button")) {
            customElements.define("portico-login-button", class extends HTMLElement {
              static get observedAttributes() { return ["lang"]; }

              constructor() {
                super();
                var root = this.attachShadow({ mode: "open", delegatesFocus: true });
                if (root.adoptedStyleSheets !== undefined && typeof CSSStyleSheet === "function") {
                  try {
                    var sheet = new CSSStyleSheet();
                    sheet.replaceSync(STYLE);
                    root.adoptedStyleSheets = [sheet];
                  } catch (ignored) { /* unstyled, still usable */ }
                }
                this.button = document.createElement("button");
                this.button.type = "button";
                this.button.setAttribute("part", "button");
                var mark = document.createElement("span");
                mark.className = "mark";
                mark.setAttribute("aria-hidden", "true");
                mark.textContent = "P";
                this.label = document.createElement("span");
                this.label.className = "label";
                this.hint = document.createElement("span");
                this.hint.className = "hint";
                this.hint.id = "hint";
                this.button.setAttribute("aria-describedby", "hint");
                this.button.append(mark, this.label);
                root.append(this.button, this.hint);
                this.button.addEventListener("click", this.start.bind(this));
              }

              connectedCallback() { this.render(); }
              attributeChangedCallback() { this.render(); }

              render() {
                var words = wordsFor(this);
                this.label.textContent = words.label;
                this.hint.textContent = words.hint;
              }

              start() {
                var element = this;
                if (element.button.getAttribute("aria-busy") === "true") { return; }
                element.button.setAttribute("aria-busy", "true");
                var settle = function (name, detail) {
                  element.button.removeAttribute("aria-busy");
                  element.dispatchEvent(new CustomEvent(name, { detail: detail, bubbles: true, composed: true }));
                };
                Portico.authorize({
                  clientId: element.getAttribute("client-id"),
                  scope: element.getAttribute("scope") || "openid",
                  redirectUri: element.getAttribute("redirect-uri"),
                  // Browsers hide a nonce attribute from getAttribute on pages with a CSP (nonce hiding).
                  nonce: element.nonce || element.getAttribute("nonce") || undefined,
                  mode: element.getAttribute("mode") || undefined,
                  uiLocales: wordsFor(element).locales
                }).then(function (result) {
                  settle("portico-authorized", result);
                }, function (failure) {
                  settle("portico-error", {
                    error: (failure && failure.error) || "unknown_error",
                    error_description: (failure && failure.error_description) || String(failure)
                  });
                });
              }
            });
          }
        })();

        """#
}
