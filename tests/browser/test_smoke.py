"""The browser harness itself: a real chromium reaches a real portico."""


def test_chromium_reads_healthz(server, browser):
    browser.get(server + "/healthz")
    assert '{"status":"ok"}' in browser.page_source
