import Testing

extension HIL {
    /// Runs `body` with headless Chromium (Scripts/browser_pages.py), tells it to quit after, and runs `stop` (the
    /// rigs the test started) whether `body` passed or threw; on a failure the browser is terminated first.
    static func inBrowser(
        then stop: () async -> Void,
        _ body: (LineProcess) async throws -> Void
    ) async throws {
        let browser: LineProcess
        do {
            let python = try #require(HIL.python, "no Python with selenium: run make test")
            browser = try LineProcess(python, ["\(HIL.packageRoot)/Scripts/browser_pages.py"])
        } catch {
            await stop()
            throw error
        }
        do {
            try await body(browser)
            _ = await browser.ask("quit", timeout: .seconds(1))
            _ = await browser.waitForExit(timeout: .seconds(20))
        } catch {
            browser.process.terminate()
            await stop()
            throw error
        }
        await stop()
    }
}
