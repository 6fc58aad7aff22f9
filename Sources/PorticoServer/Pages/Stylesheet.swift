/// The text of `/assets/portico.css`: mobile-first, one centered card under a brand bar, in
/// the spirit of Login with Amazon's pages.
///
/// Colours keep at least 4.5:1 contrast for text; every interactive element has a visible
/// focus ring; the layout needs no media query below 480 px and widens the card above it.
enum Stylesheet {
    static let text = """
        :root {
          --ink: #0f1111; --muted: #4a5157; --line: #c9cdd1; --page: #f3f4f6; --card: #ffffff;
          --brand: #131921; --accent: #ffd814; --accent-line: #d4a900; --accent-hover: #f7ca00;
          --link: #0a5c99; --danger: #a4001d; --danger-bg: #fff2f3; --focus: #1f6feb;
        }
        *, *::before, *::after { box-sizing: border-box; }
        html { -webkit-text-size-adjust: 100%; }
        body {
          margin: 0; min-height: 100vh; background: var(--page); color: var(--ink);
          font: 16px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, "Noto Sans", "Helvetica Neue", Arial, sans-serif;
        }
        a { color: var(--link); }
        a:hover { text-decoration-thickness: 2px; }
        :focus-visible { outline: 3px solid var(--focus); outline-offset: 2px; }
        .topbar {
          display: flex; align-items: center; justify-content: space-between; gap: 12px;
          background: var(--brand); color: #fff; padding: 10px 16px; min-height: 52px;
        }
        .brand { display: inline-flex; align-items: center; gap: 8px; font-weight: 700; font-size: 1.15rem; color: #fff; }
        .brand-mark {
          display: inline-grid; place-items: center; width: 28px; height: 28px; border-radius: 7px;
          background: var(--accent); color: var(--brand); font-weight: 800;
        }
        .account { display: flex; flex-wrap: wrap; align-items: center; justify-content: flex-end; gap: 4px 10px; font-size: .9rem; }
        .account .who { font-weight: 600; }
        .account form { margin: 0; }
        .linkish {
          background: none; border: 0; padding: 0; font: inherit; color: #cfe6ff; text-decoration: underline; cursor: pointer;
        }
        main { padding: 16px 12px 32px; }
        .card {
          background: var(--card); border: 1px solid var(--line); border-radius: 10px;
          padding: 20px 18px; margin: 0 auto; max-width: 440px;
        }
        h1 { font-size: 1.5rem; line-height: 1.25; margin: 0 0 8px; font-weight: 600; }
        .lead { margin: 0 0 16px; color: var(--muted); }
        .app { display: flex; align-items: center; gap: 12px; margin-bottom: 16px; }
        .app-logo, .app-placeholder {
          width: 56px; height: 56px; border-radius: 12px; flex: none; object-fit: contain; background: #fff;
          border: 1px solid var(--line);
        }
        .app-placeholder {
          display: grid; place-items: center; background: #e7eaee; color: var(--muted); font-weight: 700; font-size: 1.4rem;
        }
        .app-name { font-weight: 700; overflow-wrap: anywhere; }
        label { display: block; font-weight: 600; margin: 12px 0 4px; }
        input[type=email], input[type=password], input[type=text] {
          width: 100%; padding: 10px 12px; font: inherit; color: var(--ink); background: #fff;
          border: 1px solid #888c8c; border-radius: 6px;
        }
        input[type=email]:focus, input[type=password]:focus, input[type=text]:focus {
          border-color: var(--focus); box-shadow: 0 0 0 3px rgba(31, 111, 235, .25); outline: none;
        }
        textarea, select {
          width: 100%; padding: 10px 12px; font: inherit; color: var(--ink); background: #fff;
          border: 1px solid #888c8c; border-radius: 6px;
        }
        textarea:focus, select:focus { border-color: var(--focus); box-shadow: 0 0 0 3px rgba(31, 111, 235, .25); outline: none; }
        .credential { font-family: ui-monospace, monospace; overflow-wrap: anywhere; background: #f0f2f2; padding: 6px 8px; border-radius: 6px; display: block; }
        .check { display: flex; align-items: center; gap: 8px; margin: 10px 0; font-weight: 400; }
        .check input { width: 20px; height: 20px; margin: 0; accent-color: var(--link); }
        .no-js .needs-js { display: none; }
        .button {
          display: block; width: 100%; margin: 16px 0 8px; padding: 11px 16px; font: inherit; font-weight: 600;
          text-align: center; text-decoration: none; border-radius: 8px; cursor: pointer;
          border: 1px solid var(--line); background: #fff; color: var(--ink);
        }
        .button.primary { background: var(--accent); border-color: var(--accent-line); }
        .button.primary:hover { background: var(--accent-hover); }
        .button.secondary:hover { background: #f0f2f2; }
        .button.danger { background: var(--danger); border-color: var(--danger); color: #fff; }
        .actions { display: flex; flex-direction: column; gap: 0; }
        .alert {
          border: 1px solid var(--danger); background: var(--danger-bg); color: var(--danger);
          border-radius: 8px; padding: 10px 12px; margin: 0 0 12px;
        }
        .alert strong { display: block; }
        .alert p { margin: 0; }
        .alert p + p { margin-top: 8px; }
        .permissions { list-style: none; padding: 0; margin: 8px 0 16px; border-top: 1px solid var(--line); }
        .permissions li { padding: 10px 0 10px 28px; border-bottom: 1px solid var(--line); position: relative; }
        .permissions li::before {
          content: ""; position: absolute; left: 4px; top: 17px; width: 10px; height: 10px; border-radius: 50%;
          background: var(--accent-line);
        }
        .granted { color: var(--muted); font-size: .92rem; }
        .granted ul { margin: 4px 0 0; padding-left: 20px; }
        .small { font-size: .9rem; color: var(--muted); }
        .hint { margin: 0 0 6px; font-size: .9rem; color: var(--muted); }
        .field-error { margin: 0 0 6px; font-size: .92rem; font-weight: 600; color: var(--danger); }
        .field-error::before { content: "! "; }
        input[aria-invalid=true] { border-color: var(--danger); border-width: 2px; }
        .notice p { margin: 0; }
        .notice {
          border: 1px solid #2e7d32; background: #f0f8f1; color: #1b4d20; border-radius: 8px; padding: 10px 12px;
          margin: 0 0 12px;
        }
        .links { display: flex; flex-wrap: wrap; gap: 6px 16px; margin: 12px 0 0; font-size: .95rem; }
        .divider { display: flex; align-items: center; gap: 10px; color: var(--muted); font-size: .85rem; margin: 16px 0 4px; }
        .divider::before, .divider::after { content: ""; flex: 1; border-top: 1px solid var(--line); }
        pre {
          margin: 8px 0 0; padding: 10px 12px; background: var(--page); border: 1px solid var(--line);
          border-radius: 8px; font-size: .85rem; white-space: pre-wrap; overflow-wrap: anywhere;
        }
        details { margin-top: 14px; font-size: .95rem; }
        summary { cursor: pointer; color: var(--link); }
        .device-code {
          margin: 8px 0 16px; padding: 12px; border: 2px dashed var(--line); border-radius: 8px; text-align: center;
        }
        .device-code strong {
          display: block; font: 700 1.7rem/1.2 ui-monospace, "SFMono-Regular", Menlo, Consolas, monospace;
          letter-spacing: .12em;
        }
        input.code-input {
          font: 600 1.35rem/1.2 ui-monospace, "SFMono-Regular", Menlo, Consolas, monospace; letter-spacing: .12em;
          text-transform: uppercase; text-align: center;
        }
        .notice {
          border: 1px solid #0b6e3a; background: #eefaf2; color: #0b5130; border-radius: 8px; padding: 10px 12px;
          margin: 0 0 12px;
        }
        .notice strong { display: block; }
        .caution {
          border: 1px solid #b26a00; background: #fff8e6; color: #5a3600; border-radius: 8px; padding: 10px 12px;
          margin: 0 0 12px;
        }
        .caution p { margin: 0; }
        h2 { font-size: 1.15rem; margin: 24px 0 8px; font-weight: 600; }
        .textlink {
          display: block; width: 100%; margin: 4px 0 0; padding: 10px 0; background: none; border: 0; font: inherit;
          color: var(--link); text-decoration: underline; cursor: pointer; text-align: center;
        }
        .entries { list-style: none; padding: 0; margin: 8px 0 12px; }
        .entry { border: 1px solid var(--line); border-radius: 8px; padding: 12px 14px; margin: 0 0 10px; }
        .entry .app { margin-bottom: 8px; }
        .entry .permissions { margin: 4px 0 8px; }
        .entry form { margin: 0; }
        .entry .button { margin: 8px 0 0; }
        .entry .small { overflow-wrap: anywhere; }
        .button.compact { width: auto; display: inline-block; padding: 7px 14px; }
        .badge {
          display: inline-block; padding: 1px 8px; border-radius: 999px; background: #e3f1fb; color: #0a4a7a;
          font-size: .8rem; font-weight: 600; vertical-align: middle;
        }
        .qr { display: block; margin: 8px auto 12px; width: min(100%, 232px); height: auto; background: #fff; }
        .chart { margin: 4px 0 16px; } .chart svg { display: block; max-width: 640px; height: auto; }
        .secret, .recovery-codes { font: 600 1rem/1.5 ui-monospace, "SFMono-Regular", Menlo, Consolas, monospace; }
        .secret { word-spacing: .4em; overflow-wrap: anywhere; }
        .recovery-codes { list-style: none; padding: 0; display: grid; grid-template-columns: repeat(2, 1fr); gap: 4px 16px; }
        .legal { max-width: 440px; margin: 18px auto 0; text-align: center; font-size: .85rem; color: var(--muted); }
        .legal a { margin: 0 6px; }
        @media (min-width: 480px) {
          main { padding-top: 40px; }
          .card { padding: 28px 32px; }
          .actions { flex-direction: row-reverse; gap: 12px; }
          .actions .button { margin-bottom: 0; }
        }

        """
}
