"""WCAG 2.1 A/AA checks of every kind of page with axe-core (the engine browsers' own
accessibility audits use), in English and Simplified Chinese, at phone and desktop width, each
page screenshotted as PAGE-LANGUAGE-WIDTH.png; plus keyboard use of the sign-in form.

axe-core comes from the `axe-playwright-python` wheel (installed without its Playwright
dependency); it is injected into each page and run with the WCAG 2.0/2.1 A and AA rules."""

import importlib.resources
import uuid

import pytest
from selenium.common.exceptions import StaleElementReferenceException, WebDriverException
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support import expected_conditions as conditions
from selenium.webdriver.support.ui import WebDriverWait

AXE = (importlib.resources.files("axe_playwright_python") / "axe.min.js").read_text(encoding="utf-8")
WCAG_TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]


def wait_for(driver, locator, timeout=20):
    return WebDriverWait(driver, timeout).until(conditions.presence_of_element_located(locator))


def replaced(element):
    """A wait condition: `element`'s page has been replaced by another.

    Selenium's `staleness_of` knows only the stale-element error, but while the old document is
    being torn down ChromeDriver may instead answer "Node with given id does not belong to the
    document", which says the same thing."""

    def gone(_driver):
        try:
            element.is_enabled()
            return False
        except StaleElementReferenceException:
            return True
        except WebDriverException as error:
            if "does not belong to the document" in str(error) or "No node with given id" in str(error):
                return True
            raise

    return gone


def violations(driver):
    """The axe violations of the current page, as 'rule: target (summary)' lines."""
    driver.execute_script(AXE)
    result = driver.execute_async_script(
        "const done = arguments[arguments.length - 1];"
        "axe.run(document, {runOnly: {type: 'tag', values: arguments[0]}})"
        ".then(r => done(r.violations)).catch(e => done([{id: 'axe-error', nodes: [{target: [String(e)]}]}]));",
        WCAG_TAGS)
    lines = []
    for violation in result:
        for node in violation.get("nodes", []):
            lines.append(f"{violation['id']}: {node.get('target')} {node.get('failureSummary', '')}".strip())
    return lines


def assert_accessible(driver, page):
    """Fails with every WCAG violation axe finds on the current page."""
    found = violations(driver)
    assert not found, f"{page}: WCAG violations:\n" + "\n".join(found)


def sign_in(driver, email, password):
    wait_for(driver, (By.NAME, "email")).send_keys(email)
    driver.find_element(By.NAME, "password").send_keys(password)
    driver.find_element(By.CSS_SELECTOR, "form [type=submit]").click()


@pytest.mark.parametrize("language", ["en", "zh-CN"])
def test_pages_meet_wcag_aa(demo_server, sized_browser, language, screenshot):
    driver = sized_browser

    def check(page):
        """Audits the current page and screenshots it as PAGE-LANGUAGE-WIDTH.png."""
        assert_accessible(driver, page)
        screenshot(driver, f"{page.replace(' ', '-')}-{language}-{driver.portico_width}")

    base = demo_server.url
    locale = f"ui_locales={language}"
    # The browser asks for the language too, so pages reached by redirects follow it.
    driver.execute_cdp_cmd("Network.enable", {})
    driver.execute_cdp_cmd("Network.setExtraHTTPHeaders", {"headers": {"Accept-Language": language}})

    # Pages anyone can open.
    for path in ["/", "/signup", "/password/forgot", "/device", "/help", "/login"]:
        driver.get(f"{base}{path}?{locale}")
        wait_for(driver, (By.TAG_NAME, "h1"))
        check(path.strip("/").replace("/", "-") or "home")
    driver.get(f"{base}/oauth/authorize?client_id=nobody&response_type=code&{locale}")
    wait_for(driver, (By.TAG_NAME, "h1"))
    check("error page")

    # A failed sign-in shows the form again with its alert.
    driver.get(f"{base}/login?{locale}")
    sign_in(driver, f"nobody-{uuid.uuid4().hex[:6]}@example.com", "wrong password here")
    wait_for(driver, (By.ID, "login-error"))
    check("sign-in with an error")

    # The demo app's authorization: sign-in and consent.
    email, password = demo_server.add_user(name="Access Person")
    driver.get(demo_server.demo_url)
    wait_for(driver, (By.ID, "login-with-portico")).click()
    sign_in(driver, email, password)
    wait_for(driver, (By.CSS_SELECTOR, 'button[name="decision"][value="allow"]'))
    check("consent")
    driver.find_element(By.CSS_SELECTOR, 'button[name="decision"][value="allow"]').click()
    wait_for(driver, (By.ID, "signed-in"))

    # Signed in: Your Account and the sign-out confirmation.
    driver.get(f"{base}/account?{locale}")
    wait_for(driver, (By.NAME, "revoke"))
    check("account")
    driver.get(f"{base}/developer?{locale}")
    wait_for(driver, (By.NAME, "accept_terms"))
    check("developer terms")
    driver.get(f"{base}/oauth/logout?{locale}")
    wait_for(driver, (By.TAG_NAME, "h1"))
    check("logout confirmation")


def test_sign_in_works_from_the_keyboard_alone(demo_server, browser):
    """Tab order follows the form (email, password, show password, Sign in) and Enter submits."""
    driver = browser
    email, password = demo_server.add_user(name="Keyboard Person")
    driver.get(f"{demo_server.url}/login")
    field = wait_for(driver, (By.NAME, "email"))
    field.click()
    field.send_keys(email)
    driver.switch_to.active_element.send_keys(Keys.TAB)
    assert driver.switch_to.active_element.get_attribute("name") == "password"
    driver.switch_to.active_element.send_keys(password)
    driver.switch_to.active_element.send_keys(Keys.TAB)
    assert driver.switch_to.active_element.get_attribute("id") == "show-password"
    driver.switch_to.active_element.send_keys(Keys.SPACE)
    assert driver.find_element(By.NAME, "password").get_attribute("type") == "text"
    driver.switch_to.active_element.send_keys(Keys.TAB)
    assert driver.switch_to.active_element.get_attribute("type") == "submit"
    driver.switch_to.active_element.send_keys(Keys.ENTER)
    WebDriverWait(driver, 20).until(conditions.url_contains("/account"))
