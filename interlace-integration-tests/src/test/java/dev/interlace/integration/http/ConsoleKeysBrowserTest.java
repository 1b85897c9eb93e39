package dev.interlace.integration.http;

import static org.assertj.core.api.Assertions.assertThat;

import dev.interlace.runtime.auth.KeyFile;
import dev.interlace.runtime.auth.Scope;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.logging.Level;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.logging.LogEntry;

/**
 * The console against a server with API keys, in headless Chromium: the page itself loads without a key, asks for
 * one and says why, refuses an unknown key, works with a read key, says which scope is missing when an action needs
 * more, and keeps the key in the tab's session storage only (no cookie, never in the URL).
 */
class ConsoleKeysBrowserTest {

    private static Path dataDirectory;
    private static TestServer api;
    private static HeadlessChromium browser;
    private static String readKey;

    @BeforeAll
    static void start() throws IOException {
        dataDirectory = Files.createTempDirectory("interlace-console-keys");
        try (KeyFile keys = KeyFile.open(dataDirectory)) {
            readKey = keys.create("dashboard", List.of(Scope.parse("read")), 0).secret();
        }
        api = TestServer.start(dataDirectory);
        browser = HeadlessChromium.start();
    }

    @AfterAll
    static void stop() {
        HeadlessChromium.closeAll(browser, api, dataDirectory);
    }

    @Test
    void theConsoleAsksForAKeyRefusesAWrongOneAndSaysWhichScopeIsMissing() {
        browser.open(api.server.uri() + "/ui");
        WebElement reason = browser.await("#key-reason", text -> text.startsWith("This server needs an API key"));
        assertThat(browser.await(".error-box").getText()).contains("unauthorized");
        browser.screenshot("key-needed");

        type("ilk_not-a-key-this-server-knows");
        browser.await("#key-reason", text -> text.startsWith("The server refused this key"));
        assertThat(browser.await("#key-panel").isDisplayed()).isTrue();

        type(readKey);
        browser.await("tr[data-stream='orders'] [data-field='head']", "0"::equals);
        assertThat(browser.await("#key-panel", text -> true).isDisplayed()).isFalse();
        assertThat(browser.script("return sessionStorage.getItem('interlace.apiKey')")).isEqualTo(readKey);
        assertThat(browser.script("return document.cookie")).isEqualTo("");

        browser.open(api.server.uri() + "/ui#/models");
        browser.await("g[data-node='revenue_per_day']").click();
        browser.await("[data-action='run-now']").click();
        assertThat(browser.await("#key-reason", text -> text.startsWith("This key may not do that")).getText())
                .contains("dashboard").contains("operate");
        assertThat(browser.await("[data-run-result]").getText()).contains("forbidden");
        assertThat(browser.driver.getCurrentUrl()).doesNotContain(readKey);
        browser.screenshot("key-forbidden");

        browser.await("#key-forget").click();
        assertThat(browser.script("return sessionStorage.getItem('interlace.apiKey')")).isNull();
        assertThat(reason.getText()).contains("forgotten");

        List<String> problems = browser.consoleMessages().stream()
                .filter(entry -> entry.getLevel().intValue() >= Level.WARNING.intValue())
                .map(LogEntry::getMessage)
                .filter(message -> !message.matches(".* - Failed to load resource: the server responded with a status"
                        + " of 40[13] .*"))
                .toList();
        assertThat(problems).as("browser console errors other than the refusals the test asked for").isEmpty();
    }

    private static void type(String key) {
        WebElement input = browser.await("#key-input");
        input.clear();
        input.sendKeys(key);
        browser.await("#key-form button[type=submit]").click();
    }
}
