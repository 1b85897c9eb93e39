package dev.interlace.integration.http;

import static dev.interlace.integration.ApiAnswer.assertError;
import static org.assertj.core.api.Assertions.assertThat;

import dev.interlace.client.ErrorCode;
import dev.interlace.runtime.auth.KeyFile;
import dev.interlace.runtime.auth.Scope;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The console's static files over real HTTP: what is served and with which headers, that no key is needed for them
 * while the API still needs one, that the Host check still applies, that no path leaves the console's folder, and
 * that the shipped files hold nothing a Content-Security-Policy would block or that could turn data into markup.
 */
class ConsoleRoutesTest {

    static final String CSP = "default-src 'self'; frame-ancestors 'none'";
    static final List<String> FILES = List.of("index.html", "style.css", "icon.svg", "app.js", "api.js", "dom.js",
            "chart.js", "page-streams.js", "page-stream.js", "page-models.js", "page-find.js", "page-sql.js",
            "page-logs.js");

    @TempDir
    Path dataDirectory;

    @Test
    void everyFileIsServedWithItsTypeThePolicyAndNoSniffing() {
        Map<String, String> types = Map.of("html", "text/html; charset=utf-8", "css", "text/css; charset=utf-8",
                "js", "text/javascript; charset=utf-8", "svg", "image/svg+xml");
        try (TestServer api = TestServer.start(dataDirectory)) {
            TestServer.Response page = api.get("/ui");
            assertThat(page.status()).isEqualTo(200);
            assertThat(page.header("Content-Type")).isEqualTo("text/html; charset=utf-8");
            assertThat(page.body().asText()).contains("<script type=\"module\" src=\"/ui/app.js\"></script>");
            assertThat(api.get("/ui/").body().asText()).isEqualTo(page.body().asText());
            for (String file : FILES) {
                TestServer.Response answer = api.get("/ui/" + file);
                assertThat(answer.status()).as(file).isEqualTo(200);
                assertThat(answer.header("Content-Type")).as(file)
                        .isEqualTo(types.get(file.substring(file.lastIndexOf('.') + 1)));
                assertThat(answer.header("Content-Security-Policy")).as(file).isEqualTo(CSP);
                assertThat(answer.header("X-Content-Type-Options")).as(file).isEqualTo("nosniff");
                assertThat(answer.body().asText()).as(file).isEqualTo(resource(file));
            }
            TestServer.Response missing = api.get("/ui/nothing.js");
            assertError(missing, 404, ErrorCode.NOT_FOUND);
            assertThat(missing.header("Content-Security-Policy")).isEqualTo(CSP);
            assertThat(missing.header("X-Content-Type-Options")).isEqualTo("nosniff");
        }
    }

    @Test
    void noPathLeavesTheConsolesFolder() {
        try (TestServer api = TestServer.start(dataDirectory)) {
            for (String path : List.of("/ui/../pom.xml", "/ui/..%2F..%2Fpom.xml", "/ui/%2e%2e%2fkeys.json",
                    "/ui/..", "/ui/.%2e/.%2e/etc/passwd", "/ui/app.js%00.png", "/ui/APP.JS", "/ui/.app.js",
                    "/ui/app.js/", "/ui/%61pp.js", "/ui/dev/interlace/runtime/http/ConsoleRoutes.class",
                    "/ui/ConsoleRoutes.class", "/ui/..\\..\\pom.xml", "/ui/app.js;.css")) {
                try (RawClient client = new RawClient(api.server.uri())) {
                    client.write("GET " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
                    RawClient.Answer answer = client.read(5_000);
                    boolean served = answer.status() == 200;
                    if (served) { // only a trailing slash is forgiven: it is the same file
                        assertThat(path).isEqualTo("/ui/app.js/");
                        assertThat(answer.body()).isEqualTo(resource("app.js"));
                    } else {
                        assertThat(answer.status()).as(path).isIn(400, 404);
                        assertThat(answer.body()).as(path).doesNotContain("<project").doesNotContain("root:");
                    }
                }
            }
        }
    }

    @Test
    void theFilesNeedNoKeyButTheApiDoesAndTheHostCheckStillApplies() throws IOException {
        try (TestServer open = TestServer.start(dataDirectory)) {
            try (RawClient client = new RawClient(open.server.uri())) {
                client.write("GET /ui HTTP/1.1\r\nHost: attacker.example\r\n\r\n");
                assertThat(client.read(5_000).status()).as("a rebinding Host in open mode").isEqualTo(421);
            }
        }
        try (KeyFile keys = KeyFile.open(dataDirectory)) {
            keys.create("reader", List.of(Scope.parse("read")), 0);
        }
        try (TestServer secured = TestServer.start(dataDirectory)) {
            assertThat(secured.get("/ui").status()).isEqualTo(200);
            assertThat(secured.get("/ui/app.js").status()).isEqualTo(200);
            TestServer.Response streams = secured.get("/streams");
            assertThat(streams.status()).isEqualTo(401);
            assertThat(streams.header("WWW-Authenticate")).startsWith("Bearer");
        }
        try (TestServer withHosts = TestServer.start(dataDirectory, "--allowed-hosts", "console.example")) {
            try (RawClient client = new RawClient(withHosts.server.uri())) {
                client.write("GET /ui HTTP/1.1\r\nHost: attacker.example\r\n\r\n");
                assertThat(client.read(5_000).status()).as("with keys and --allowed-hosts").isEqualTo(421);
            }
        }
    }

    /**
     * The policy forbids inline script and style, and data must never become markup: the shipped files carry no
     * inline script, no style or event-handler attributes, and no API that parses a string as HTML or code.
     */
    @Test
    void theShippedFilesHoldNothingThePolicyWouldBlockOrThatParsesDataAsMarkup() {
        String html = resource("index.html");
        assertThat(Pattern.compile("<script(?![^>]*\\ssrc=)[^>]*>").matcher(html).find()).as("inline script").isFalse();
        assertThat(Pattern.compile("\\sstyle\\s*=", Pattern.CASE_INSENSITIVE).matcher(html).find()).isFalse();
        assertThat(Pattern.compile("\\son[a-z]+\\s*=", Pattern.CASE_INSENSITIVE).matcher(html).find()).isFalse();
        assertThat(html).doesNotContain("<style").doesNotContain("javascript:");
        for (String file : FILES) {
            if (file.endsWith(".js")) {
                assertThat(resource(file)).as(file).doesNotContain("innerHTML", "outerHTML", "insertAdjacentHTML",
                        "document.write", "eval(", "new Function", "setAttribute('style'", "DOMParser",
                        "createContextualFragment", "srcdoc", "document.cookie", "localStorage");
            }
        }
    }

    private static String resource(String file) {
        try (InputStream in = ConsoleRoutesTest.class.getClassLoader()
                .getResourceAsStream("dev/interlace/runtime/http/console/" + file)) {
            assertThat(in).as(file).isNotNull();
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new AssertionError(e);
        }
    }
}
