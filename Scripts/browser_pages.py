#!/usr/bin/env python3
"""Drives a real headless Chromium (Debian's chromium + chromium-driver, through Selenium) for the tests.

Reads commands on stdin, one per line, and answers each with one line on stdout:

    open NAME URL                     load URL in the tab called NAME (a new tab
                                      the first time)                            -> ok
    expect NAME ELEMENT_ID TEXT...    wait up to 15 s until the element's text
                                      contains TEXT                              -> ok | fail <what it shows>
    seen NAME ELEMENT_ID TEXT...      the same, and neither it nor a parent is
                                      hidden                                     -> ok | fail <what it shows>
    gone NAME ELEMENT_ID TEXT...      wait up to 15 s until it no longer does    -> ok | fail <what it shows>
    text NAME ELEMENT_ID              the element's text now                     -> ok <text>
    click NAME ELEMENT_ID             click it                                   -> ok
    press NAME CSS_SELECTOR           click the first element it matches, as a
                                      user does (waits up to 15 s for one)       -> ok
    shown NAME ELEMENT_ID             wait up to 15 s until it is displayed      -> ok | fail
    hidden NAME ELEMENT_ID            wait up to 15 s until it is not displayed  -> ok | fail
    shot NAME ELEMENT_ID PNG_PATH     a screenshot of the element                -> ok
    url NAME                          the tab's address now                      -> ok <url>
    type NAME ELEMENT_ID TEXT...      clear the field and type TEXT into it
                                      (waits up to 15 s for it to show)          -> ok
    submit NAME FORM_ID               submit the form without the browser's own
                                      checks, as a client that skips them does   -> ok
    json NAME ELEMENT_ID              the element's text as a JSON string, line
                                      breaks kept                                -> ok <json>
    watch NAME ELEMENT_ID TEXT...     note the time (Date.now(), ms) at which the
                                      element's text comes to contain TEXT       -> ok
    watched NAME                      that time, once it happened                -> ok <ms> | ok none
    axe NAME                          run axe-core 4.12 (the copy PyPI's
                                      axe-playwright-python carries) for WCAG
                                      2.2 A/AA on the page                       -> ok | fail <violations>
    page NAME WIDTH HEIGHT PNG_PATH   a screenshot of the whole page at that
                                      window width (for the README)             -> ok
    locate NAME LAT LON               the browser's position from now on (the
                                      page's origin may read it)                 -> ok
    requests NAME                     every URL the browser asked for since the
                                      last `requests` (any tab), as JSON         -> ok <json>
    allow NAME PERMISSION             grant the page's origin a permission
                                      (notifications, geolocation)              -> ok
    push NAME JSON...                 deliver a push message with this data to
                                      the origin's service worker (DevTools'
                                      ServiceWorker.deliverPushMessage)          -> ok | fail
    notifications NAME                the notifications the origin's service
                                      worker shows, as JSON [title, body, tag]   -> ok <json>
    quit

The test that starts this script decides what happens between two commands (a tear-off, a scan), so what
is checked is that the page, as a browser runs it, follows the kiosk live.
"""
import json
import sys
import time

from selenium import webdriver
from selenium.common.exceptions import WebDriverException
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By


def start():
    options = webdriver.ChromeOptions()
    for argument in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                     "--window-size=1280,800"):
        options.add_argument(argument)
    options.binary_location = "/usr/bin/chromium"
    # The DevTools network log, for `requests`: what left the browser, EventSource streams included.
    options.set_capability("goog:loggingPrefs", {"performance": "ALL"})
    # Debian's driver, never one selenium-manager would download.
    return webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)


# axe-core's tags for WCAG 2.2 level A and AA (2.0, 2.1 and 2.2 success criteria).
WCAG_22_AA = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa"]


def axe_source():
    """axe.min.js from axe-playwright-python's folder, found without importing it (its Playwright is not
    installed: only the script is used, injected through Selenium)."""
    import importlib.util
    import pathlib
    spec = importlib.util.find_spec("axe_playwright_python")
    folder = pathlib.Path(list(spec.submodule_search_locations)[0])
    return (folder / "axe.min.js").read_text()


def element_text(driver, element_id, unhidden=False):
    """An element's text; with unhidden, None while it or a parent is hidden."""
    return driver.execute_script(
        "const e = document.getElementById(arguments[0]);"
        " return e && !(arguments[1] && e.closest('[hidden]')) ? e.textContent : null;", element_id, unhidden)


def main():
    driver = start()
    tabs = {}
    say("ready")
    try:
        for line in sys.stdin:
            words = line.split()
            if not words:
                continue
            command = words[0]
            try:
                if command == "quit":
                    break
                if command == "open":
                    name, url = words[1], words[2]
                    if name in tabs:
                        driver.switch_to.window(tabs[name])
                    elif tabs:
                        driver.switch_to.new_window("tab")
                    driver.get(url)
                    tabs[name] = driver.current_window_handle
                    say("ok")
                    continue
                driver.switch_to.window(tabs[words[1]])
                if command == "text":
                    say("ok " + one_line(element_text(driver, words[2])))
                elif command == "click":
                    driver.execute_script("document.getElementById(arguments[0]).click();", words[2])
                    say("ok")
                elif command == "press":
                    selector = " ".join(words[2:])
                    element = wait_for(lambda: first(driver, selector))
                    if element is None:
                        say("fail nothing matches " + selector)
                    else:
                        element.click()
                        say("ok")
                elif command == "shown":
                    element = wait_for(lambda: visible(driver, words[2]))
                    say("ok" if element is not None else "fail not shown")
                elif command == "hidden":
                    gone = wait_for(lambda: None if visible(driver, words[2]) else True)
                    say("ok" if gone else "fail still shown")
                elif command == "shot":
                    driver.find_element(By.ID, words[2]).screenshot(words[3])
                    say("ok")
                elif command == "type":
                    # The field may be on the page a click is still loading: wait for it.
                    field = wait_for(lambda: visible(driver, words[2]))
                    if field is None:
                        say("fail no field " + words[2])
                        continue
                    field.clear()
                    field.send_keys(line.rstrip("\n").split(" ", 3)[3] if len(words) > 3 else "")
                    say("ok")
                elif command == "submit":
                    driver.execute_script(
                        "const f = document.getElementById(arguments[0]); f.noValidate = true; f.requestSubmit();",
                        words[2])
                    say("ok")
                elif command == "watch":
                    driver.execute_script(
                        "window.__seen = null; const e = document.getElementById(arguments[0]);"
                        "const check = () => { if (window.__seen === null && e.textContent.includes(arguments[1]))"
                        " window.__seen = Date.now(); };"
                        "new MutationObserver(check).observe(e, {childList: true, characterData: true, subtree: true});"
                        "check();", words[2], " ".join(words[3:]))
                    say("ok")
                elif command == "watched":
                    seen = driver.execute_script("return window.__seen;")
                    say("ok " + ("none" if seen is None else str(seen)))
                elif command == "axe":
                    driver.execute_script(axe_source())
                    driver.set_script_timeout(60)
                    results = driver.execute_async_script(
                        "axe.run(document, {runOnly: {type: 'tag', values: arguments[0]}})"
                        ".then(arguments[arguments.length - 1]);", WCAG_22_AA)
                    violations = results["violations"]
                    say("ok" if not violations else "fail " + one_line("; ".join(
                        v["id"] + " (" + str(v.get("impact")) + "): "
                        + ", ".join(" ".join(n["target"]) for n in v["nodes"][:3]) for v in violations)))
                elif command == "page":
                    width, height = int(words[2]), int(words[3])
                    driver.set_window_size(width, height)
                    time.sleep(0.3)
                    full = driver.execute_script("return document.documentElement.scrollHeight")
                    driver.set_window_size(width, max(height, min(full + 140, 4000)))
                    time.sleep(0.3)
                    driver.save_screenshot(words[4])
                    driver.set_window_size(1280, 800)
                    say("ok")
                elif command == "locate":
                    origin = driver.execute_script("return location.origin;")
                    driver.execute_cdp_cmd("Browser.grantPermissions",
                                           {"origin": origin, "permissions": ["geolocation"]})
                    driver.execute_cdp_cmd("Emulation.setGeolocationOverride",
                                           {"latitude": float(words[2]), "longitude": float(words[3]),
                                            "accuracy": 10})
                    say("ok")
                elif command == "allow":
                    origin = driver.execute_script("return location.origin;")
                    driver.execute_cdp_cmd("Browser.grantPermissions", {"origin": origin, "permissions": [words[2]]})
                    say("ok")
                elif command == "push":
                    say(deliver_push(driver, line.rstrip("\n").split(" ", 2)[2]))
                elif command == "notifications":
                    driver.set_script_timeout(5)
                    shown = driver.execute_async_script(
                        "const done = arguments[arguments.length - 1];"
                        "navigator.serviceWorker.ready.then(r => r.getNotifications())"
                        ".then(l => done(l.map(n => [n.title, n.body, n.tag])), e => done(String(e)));")
                    say("ok " + json.dumps(shown))
                elif command == "requests":
                    urls = []
                    for entry in driver.get_log("performance"):
                        message = json.loads(entry["message"])["message"]
                        if message.get("method") == "Network.requestWillBeSent":
                            urls.append(message["params"]["request"]["url"])
                    say("ok " + json.dumps(urls))
                elif command == "json":
                    say("ok " + json.dumps(element_text(driver, words[2])))
                elif command == "url":
                    say("ok " + driver.current_url)
                elif command in ("expect", "seen", "gone"):
                    wanted = " ".join(words[3:])
                    present = command != "gone"
                    unhidden = command == "seen"

                    def holds(shown):
                        return shown is not None and (wanted in shown) == present

                    deadline = time.monotonic() + 15
                    shown = element_text(driver, words[2], unhidden)
                    while not holds(shown) and time.monotonic() < deadline:
                        time.sleep(0.05)
                        shown = element_text(driver, words[2], unhidden)
                    say("ok" if holds(shown) else "fail " + one_line(shown))
                else:
                    say("fail unknown command " + command)
            except (WebDriverException, KeyError, IndexError) as error:
                say("fail " + one_line(str(error)))
    finally:
        driver.quit()


def deliver_push(driver, data):
    """Delivers `data` to the page origin's service worker: its registration found by trying the ids Chromium
    gives a fresh profile's registrations (small numbers, in order), once the worker is active."""
    origin = driver.execute_script("return location.origin;")
    driver.set_script_timeout(10)
    ready = driver.execute_async_script(
        "const done = arguments[arguments.length - 1];"
        "navigator.serviceWorker.ready.then(r => done(!!r.active), e => done(String(e)));")
    if ready is not True:
        return "fail no active service worker: " + one_line(ready)
    driver.execute_cdp_cmd("ServiceWorker.enable", {})
    last = ""
    for registration in range(0, 32):
        try:
            driver.execute_cdp_cmd("ServiceWorker.deliverPushMessage",
                                   {"origin": origin, "registrationId": str(registration), "data": data})
            return "ok"
        except WebDriverException as error:
            last = str(error)
    return "fail " + one_line(last)


def wait_for(find, seconds=15):
    deadline = time.monotonic() + seconds
    found = find()
    while found is None and time.monotonic() < deadline:
        time.sleep(0.05)
        found = find()
    return found


def first(driver, selector):
    elements = driver.find_elements(By.CSS_SELECTOR, selector)
    return elements[0] if elements and elements[0].is_displayed() and elements[0].is_enabled() else None


def visible(driver, element_id):
    elements = driver.find_elements(By.ID, element_id)
    return elements[0] if elements and elements[0].is_displayed() else None


def one_line(text):
    return " ".join(str(text).split())


def say(text):
    sys.stdout.write(text + "\n")
    sys.stdout.flush()


if __name__ == "__main__":
    main()
