package dev.interlace.integration.http;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;
import java.util.logging.Level;
import java.util.stream.Stream;
import org.openqa.selenium.By;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.logging.LogEntry;
import org.openqa.selenium.logging.LogType;
import org.openqa.selenium.logging.LoggingPreferences;
import org.openqa.selenium.support.ui.WebDriverWait;

/**
 * Debian's headless Chromium driven through Debian's chromedriver (never one Selenium would download): a fresh
 * profile, a known viewport, the browser console's messages, screenshots under {@code target/console-screenshots}.
 */
final class HeadlessChromium implements AutoCloseable {

    static final Path CHROMIUM = Path.of("/usr/bin/chromium");
    static final Path CHROMEDRIVER = Path.of("/usr/bin/chromedriver");
    static final Path SCREENSHOTS = Path.of("target", "console-screenshots");
    /**
     * How long a test waits for the page to show something: the console polls the API, and on a loaded machine a
     * server's flushes of several partitions (with a flush delay) took longer than 15 s.
     */
    static final Duration WAIT = Duration.ofSeconds(30);

    final ChromeDriver driver;
    final Path downloads;
    private final Path profile;

    private HeadlessChromium(ChromeDriver driver, Path profile, Path downloads) {
        this.driver = driver;
        this.profile = profile;
        this.downloads = downloads;
    }

    /** Starts the browser; fails (never skips) with how to install it when Chromium or its driver is missing. */
    static HeadlessChromium start() {
        if (!Files.isExecutable(CHROMIUM) || !Files.isExecutable(CHROMEDRIVER)) {
            throw new IllegalStateException("the console's browser tests need Debian's Chromium and its driver at "
                    + CHROMIUM + " and " + CHROMEDRIVER + "; install them with `apt-get install -y chromium"
                    + " chromium-driver` (.ci/run does so when they are missing)");
        }
        System.setProperty("webdriver.chrome.driver", CHROMEDRIVER.toString());
        try {
            Path profile = Files.createTempDirectory("interlace-chromium-profile");
            Path downloads = Files.createTempDirectory("interlace-chromium-downloads");
            ChromeOptions options = new ChromeOptions();
            options.setBinary(CHROMIUM.toFile());
            options.addArguments("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                    "--disable-background-networking", "--disable-component-update", "--disable-sync",
                    "--no-first-run", "--disable-extensions", "--window-size=1280,800",
                    "--user-data-dir=" + profile);
            options.setExperimentalOption("prefs", Map.of("download.default_directory", downloads.toString(),
                    "download.prompt_for_download", false));
            LoggingPreferences logging = new LoggingPreferences();
            logging.enable(LogType.BROWSER, Level.ALL);
            options.setCapability("goog:loggingPrefs", logging);
            ChromeDriverService service = new ChromeDriverService.Builder()
                    .usingDriverExecutable(CHROMEDRIVER.toFile()).usingAnyFreePort().build();
            ChromeDriver driver = new ChromeDriver(service, options);
            driver.manage().timeouts().scriptTimeout(Duration.ofSeconds(10));
            HeadlessChromium browser = new HeadlessChromium(driver, profile, downloads);
            browser.viewport(1280, 800, false);
            return browser;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Sets the page's viewport exactly (CSS pixels), as a desktop or as a phone. */
    void viewport(int width, int height, boolean mobile) {
        driver.executeCdpCommand("Emulation.setDeviceMetricsOverride", Map.of("width", width, "height", height,
                "deviceScaleFactor", 1, "mobile", mobile));
    }

    void open(String url) {
        driver.get(url);
    }

    /**
     * Waits (up to {@link #WAIT}) for the first element matching {@code css} whose text satisfies {@code condition}.
     */
    WebElement await(String css, Predicate<String> condition) {
        return new WebDriverWait(driver, WAIT).until(d -> {
            for (WebElement element : d.findElements(By.cssSelector(css))) {
                try {
                    if (condition.test(element.getText())) {
                        return element;
                    }
                } catch (org.openqa.selenium.StaleElementReferenceException e) {
                    // re-rendered meanwhile; the next poll finds the new one
                }
            }
            return null;
        });
    }

    WebElement await(String css) {
        return await(css, text -> true);
    }

    List<WebElement> all(String css) {
        return driver.findElements(By.cssSelector(css));
    }

    Object script(String code, Object... arguments) {
        return driver.executeScript(code, arguments);
    }

    /** The browser console's messages since the last call. */
    List<LogEntry> consoleMessages() {
        return new ArrayList<>(driver.manage().logs().get(LogType.BROWSER).getAll());
    }

    /** Asserts that the browser console has logged no error (or warning) since the last call. */
    void assertConsoleClean() {
        List<String> problems = consoleMessages().stream()
                .filter(entry -> entry.getLevel().intValue() >= Level.WARNING.intValue())
                .map(entry -> entry.getLevel() + " " + entry.getMessage()).toList();
        assertThat(problems).as("errors and warnings in the browser console").isEmpty();
    }

    /** Saves a PNG of the viewport as {@code target/console-screenshots/<name>.png}. */
    Path screenshot(String name) {
        try {
            Files.createDirectories(SCREENSHOTS);
            Path file = SCREENSHOTS.resolve(name + ".png");
            Files.copy(driver.getScreenshotAs(OutputType.FILE).toPath(), file, StandardCopyOption.REPLACE_EXISTING);
            return file;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public void close() {
        try {
            driver.quit();
        } finally {
            delete(profile);
            delete(downloads);
        }
    }

    /**
     * After a console test class: closes {@code browser}, then {@code api}, then deletes {@code dataDirectory}; each
     * step also when the one before failed, or never started (null).
     */
    static void closeAll(HeadlessChromium browser, TestServer api, Path dataDirectory) {
        try {
            if (browser != null) {
                browser.close();
            }
        } finally {
            try {
                if (api != null) {
                    api.close();
                }
            } finally {
                if (dataDirectory != null) {
                    delete(dataDirectory);
                }
            }
        }
    }

    private static void delete(Path directory) {
        try (Stream<Path> paths = Files.walk(directory)) {
            paths.sorted(Comparator.reverseOrder()).forEach(path -> path.toFile().delete());
        } catch (IOException e) {
            // a temp dir left behind is harmless
        }
    }
}
