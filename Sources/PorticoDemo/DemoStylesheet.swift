import PorticoHTTP

/// `/demo/demo.css`: what makes the demo app look like its own site on top of Portico's
/// stylesheet (its top bar, the "Login with Portico" button, result tables).
enum DemoStylesheet {
    static let text = """
        body.demo { background: #eef3f8; }
        .demo-topbar {
          display: flex; flex-wrap: wrap; align-items: baseline; gap: 4px 12px; padding: 12px 16px;
          background: #0b3d5c; color: #fff;
        }
        .demo-brand { color: #fff; font-weight: 700; font-size: 1.15rem; text-decoration: none; }
        .demo-tag { color: #cfe3f1; font-size: .85rem; }
        .card.demo-card { max-width: 640px; }
        .demo-card h2 { font-size: 1.05rem; margin: 20px 0 6px; }
        .demo-login {
          display: inline-flex; align-items: center; gap: 10px; min-height: 44px; padding: 8px 18px;
          border-radius: 8px; border: 1px solid #d4a900; background: #ffd814; color: #0f1111;
          font-weight: 600; text-decoration: none;
        }
        .demo-login:hover { background: #f7ca00; }
        .demo-login-mark {
          display: inline-grid; place-items: center; width: 24px; height: 24px; border-radius: 6px;
          background: #131921; color: #ffd814; font-weight: 800;
        }
        .demo-hint { background: #f6f8fa; border: 1px solid #d0d7de; border-radius: 6px; padding: 8px 10px; }
        .demo-how { margin-top: 16px; color: #4a5157; }
        .demo-how summary { cursor: pointer; color: #0a5c99; }
        .demo-table { width: 100%; border-collapse: collapse; table-layout: fixed; font-size: .95rem; }
        .demo-table th, .demo-table td {
          text-align: left; vertical-align: top; padding: 6px 8px; border-top: 1px solid #e1e4e8;
          overflow-wrap: anywhere;
        }
        .demo-table th { width: 36%; font-weight: 600; color: #4a5157; overflow-wrap: break-word; font-size: .9rem; }
        .demo-actions { display: flex; flex-wrap: wrap; gap: 8px 20px; margin-top: 20px; }
        .demo-signout { margin-top: 12px; }
        .demo-signout-button {
          min-height: 44px; padding: 8px 18px; border-radius: 8px; border: 1px solid #888c8c; background: #fff;
          color: #0f1111; font: inherit; font-weight: 600; cursor: pointer;
        }
        .demo-signout-button:hover { background: #f0f2f2; }
        code { font-size: .9em; overflow-wrap: anywhere; }
        """

    /// The prebuilt response.
    static let response: Response = {
        var response = Response(status: .ok, body: Array(text.utf8))
        response.headers["Content-Type"] = "text/css; charset=utf-8"
        response.headers["Cache-Control"] = "public, max-age=3600"
        return response
    }()
}
