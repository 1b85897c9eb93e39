package dev.interlace.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.interlace.client.InterlaceClient;
import dev.interlace.runtime.Interlace;
import dev.interlace.runtime.config.InterlaceConfig;
import dev.interlace.runtime.testing.Eventually;
import dev.interlace.spring.boot.shop.ShopApplication;
import java.io.IOException;
import java.net.ConnectException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.SystemEnvironmentPropertySource;

/**
 * A Spring Boot application with the starter, started with {@link SpringApplication} on random ports: Interlace
 * listens on its own port beside the application's web server, takes publishes over HTTP, materialises the
 * application's SQL model, shows its health under {@code /actuator/health} and its meters under
 * {@code /actuator/prometheus}, and stops with the application.
 */
class SpringApplicationTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private final HttpClient http = HttpClient.newHttpClient();

    @TempDir
    Path dataDir;

    @Test
    void anApplicationServesInterlaceOnItsOwnPortWithActuatorHealthAndMetricsAndStopsCleanly() throws Exception {
        ConfigurableApplicationContext context = start(WebApplicationType.SERVLET, "--server.port=0",
                "--interlace.port=0", "--interlace.data-dir=" + dataDir,
                "--management.endpoints.web.exposure.include=health,prometheus",
                "--management.endpoint.health.show-details=always");
        URI interlace;
        try {
            InterlaceServer server = context.getBean(InterlaceServer.class);
            int appPort = ((WebServerApplicationContext) context).getWebServer().getPort();
            assertThat(server.port()).isPositive().isNotEqualTo(appPort);
            interlace = server.uri();

            HttpResponse<String> published = post(interlace.resolve("/streams/shop_orders"), "application/json",
                    "[{\"order_id\": \"a\", \"total\": 10.50}, {\"order_id\": \"b\", \"total\": 4.25}]");
            assertThat(published.statusCode()).isEqualTo(200);
            assertThat(JSON.readTree(published.body()).get("accepted").asInt()).isEqualTo(2);

            JsonNode models = JSON.readTree(get(interlace.resolve("/models")).body());
            assertThat(models.get("models").findValuesAsText("name")).containsExactly("shop_order_totals");
            assertThat(awaitRows(interlace, "SELECT orders, revenue FROM shop_order_totals"))
                    .isEqualTo("[[2,14.75]]");

            URI app = URI.create("http://127.0.0.1:" + appPort);
            HttpResponse<String> health = get(app.resolve("/actuator/health"));
            assertThat(health.statusCode()).isEqualTo(200);
            JsonNode components = JSON.readTree(health.body()).get("components").get("interlace");
            assertThat(components.get("status").asText()).isEqualTo("UP");
            for (String check : List.of("live", "ready", "log", "flush")) {
                assertThat(components.get("components").get(check).get("status").asText()).as(check).isEqualTo("UP");
            }

            HttpResponse<String> prometheus = get(app.resolve("/actuator/prometheus"));
            assertThat(prometheus.statusCode()).isEqualTo(200);
            assertThat(prometheus.body())
                    .contains("interlace_publish_requests_total{")
                    .contains("stream=\"shop_orders\"")
                    .contains("interlace_model_results_total{")
                    // the application's own meters sit in the same registry
                    .contains("jvm_memory_used_bytes");
        } finally {
            context.close();
        }

        assertThatThrownBy(() -> get(interlace.resolve("/health/live"))).isInstanceOf(ConnectException.class);
        // The data directory was released and everything published is in the warehouse: a server started on it
        // finds both events and nothing left to flush.
        try (Interlace reopened = Interlace.builder().config(InterlaceConfig.defaults().withDataDirectory(dataDir)
                .withPort(0)).start()) {
            assertThat(sqlRows(reopened.uri(), "SELECT count(*) FROM streams.shop_orders")).isEqualTo("[[2]]");
        }
    }

    @Test
    void stoppingTheApplicationDrainsWhatTheLogHoldsIntoTheWarehouse() throws Exception {
        // A flush delay of an hour: nothing reaches the warehouse before the application stops.
        ConfigurableApplicationContext context = start(WebApplicationType.NONE, "--interlace.port=0",
                "--interlace.data-dir=" + dataDir, "--interlace.flush-delay-ms=3600000");
        try {
            URI interlace = context.getBean(InterlaceServer.class).uri();
            HttpResponse<String> published = post(interlace.resolve("/streams/shop_orders"), "application/json",
                    "[{\"order_id\": \"d\", \"total\": 1}, {\"order_id\": \"e\", \"total\": 2},"
                            + " {\"order_id\": \"f\", \"total\": 3}]");
            assertThat(published.statusCode()).isEqualTo(200);
        } finally {
            context.close();
        }
        try (java.sql.Connection warehouse = java.sql.DriverManager.getConnection(
                "jdbc:duckdb:" + dataDir.resolve("warehouse.duckdb"));
                java.sql.ResultSet rows = warehouse.createStatement().executeQuery(
                        "SELECT count(*) FROM streams.shop_orders")) {
            assertThat(rows.next()).isTrue();
            assertThat(rows.getLong(1)).isEqualTo(3);
        }
    }

    @Test
    void aServerThatCannotTakePublishesIsDownUnderActuatorHealth() throws Exception {
        try (ConfigurableApplicationContext context = start(WebApplicationType.SERVLET, "--server.port=0",
                "--interlace.port=0", "--interlace.data-dir=" + dataDir,
                "--interlace.min-free-disk-bytes=" + Long.MAX_VALUE,
                "--management.endpoint.health.show-details=always")) {
            int appPort = ((WebServerApplicationContext) context).getWebServer().getPort();
            HttpResponse<String> health = get(URI.create("http://127.0.0.1:" + appPort + "/actuator/health"));
            assertThat(health.statusCode()).isEqualTo(503);
            JsonNode interlace = JSON.readTree(health.body()).get("components").get("interlace");
            assertThat(interlace.get("status").asText()).isEqualTo("DOWN");
            JsonNode checks = interlace.get("components");
            assertThat(checks.get("live").get("status").asText()).isEqualTo("UP");
            assertThat(checks.get("ready").get("status").asText()).isEqualTo("DOWN");
            assertThat(checks.get("ready").get("details").get("min_free_disk_bytes").asLong())
                    .isEqualTo(Long.MAX_VALUE);
            assertThat(checks.get("log").get("status").asText()).isEqualTo("UP");
            assertThat(checks.get("flush").get("status").asText()).isEqualTo("UP");
        }
    }

    @Test
    void interlaceEnabledFalseStartsNoServer() {
        try (ConfigurableApplicationContext context = start(WebApplicationType.NONE, "--interlace.enabled=false",
                "--interlace.data-dir=" + dataDir)) {
            assertThat(context.getBeanNamesForType(InterlaceServer.class)).isEmpty();
            assertThat(context.getBeanNamesForType(InterlaceClient.class)).isEmpty();
        }
    }

    @Test
    void anInterlaceClientBeanPublishesToTheUrlItIsGiven() throws Exception {
        SpringApplication application = application(WebApplicationType.NONE);
        // interlace.client.url names the embedded server's port, known only once it runs: the client is made
        // with a placeholder port that the server is asked to listen on.
        int port;
        try (java.net.ServerSocket free = new java.net.ServerSocket(0)) {
            port = free.getLocalPort();
        }
        try (ConfigurableApplicationContext context = application.run("--interlace.port=" + port,
                "--interlace.data-dir=" + dataDir, "--interlace.client.url=http://127.0.0.1:" + port)) {
            InterlaceClient client = context.getBean(InterlaceClient.class);
            assertThat(client.publish("shop_orders", Map.of("order_id", "c", "total", 1)).accepted()).isEqualTo(1L);
        }
    }

    @Test
    void theApplicationsOwnBeansWin() {
        SpringApplication application = application(WebApplicationType.NONE);
        application.addPrimarySources(List.of(OwnServer.class));
        try (ConfigurableApplicationContext context = application.run("--interlace.data-dir=" + dataDir)) {
            assertThat(context.getBeansOfType(InterlaceServer.class)).containsOnlyKeys("ownServer");
            assertThat(context.getBean(InterlaceServer.class).isRunning()).isFalse();
        }
    }

    @Test
    void environmentVariablesAndRelaxedNamesConfigureTheServer() {
        SpringApplication application = application(WebApplicationType.NONE);
        application.addInitializers(context -> context.getEnvironment().getPropertySources().addFirst(
                new SystemEnvironmentPropertySource("test-systemEnvironment", Map.of(
                        "INTERLACE_DATA_DIR", dataDir.toString(), "INTERLACE_PORT", "0",
                        "INTERLACE_MAX_EVENTS_PER_REQUEST", "7"))));
        try (ConfigurableApplicationContext context = application.run("--interlace.flushDelayMs=5",
                // a list as YAML writes it, item by item, and one as a comma-separated value
                "--interlace.allowed-hosts[0]=a.example", "--interlace.allowed-hosts[1]=b.example",
                "--interlace.cors-origins=https://app.example,https://admin.example")) {
            InterlaceConfig config = context.getBean(InterlaceServer.class).interlace().config();
            assertThat(config.dataDirectory()).isEqualTo(dataDir);
            assertThat(config.maxEventsPerRequest()).isEqualTo(7);
            assertThat(config.flushDelayMillis()).isEqualTo(5);
            assertThat(config.exposure().allowedHosts()).containsExactly("a.example", "b.example");
            assertThat(config.exposure().corsOrigins()).containsExactly("https://app.example",
                    "https://admin.example");
        }
    }

    @Test
    void aValueServeWouldRefuseStopsTheApplicationNamingTheProperty() {
        assertThatThrownBy(() -> start(WebApplicationType.NONE, "--interlace.data-dir=" + dataDir,
                "--interlace.max-pending=lots"))
                .rootCause().hasMessageContaining("--max-pending must be a whole number, got \"lots\"");
        assertThatThrownBy(() -> start(WebApplicationType.NONE, "--interlace.data-dir=" + dataDir,
                "--interlace.max-pending=lots"))
                .hasStackTraceContaining("invalid interlace.* properties");
    }

    @Test
    void aMistypedPropertyStopsTheApplicationNamingIt() {
        assertThatThrownBy(() -> start(WebApplicationType.NONE, "--interlace.data-dir=" + dataDir,
                "--interlace.max-pendng=5"))
                .hasStackTraceContaining("unknown property interlace.max-pendng")
                .hasStackTraceContaining("interlace.max-pending");
        assertThatThrownBy(() -> start(WebApplicationType.NONE, "--interlace.data-dir=" + dataDir,
                "--interlace.client.apikey=k", "--interlace.client.url=http://127.0.0.1:1", "--interlace.client.uri=x"))
                .hasStackTraceContaining("unknown property interlace.client.uri");
    }

    /** An application that defines its own server bean (never started: its phase is its own business). */
    @Configuration(proxyBeanMethods = false)
    static class OwnServer {
        @Bean
        InterlaceServer ownServer() {
            return new InterlaceServer(InterlaceConfig.defaults(), dev.interlace.runtime.stream.StreamCatalog.of(
                    List.of()), OwnServer.class.getClassLoader(), java.util.Optional::empty) {
                @Override
                public boolean isAutoStartup() {
                    return false;
                }
            };
        }
    }

    private static SpringApplication application(WebApplicationType type) {
        SpringApplication application = new SpringApplication(ShopApplication.class);
        application.setWebApplicationType(type);
        return application;
    }

    private static ConfigurableApplicationContext start(WebApplicationType type, String... args) {
        return application(type).run(args);
    }

    private String awaitRows(URI interlace, String sql) throws Exception {
        // The model runs after the flush that follows the publish; both are the server's own pace, so wait for the
        // rows rather than for a time.
        return Eventually.get("rows from " + sql, Duration.ofSeconds(60), () -> {
            HttpResponse<String> answer = post(interlace.resolve("/sql"), "text/plain", sql);
            return answer.statusCode() == 200 ? JSON.readTree(answer.body()).get("rows").toString() : null;
        }, rows -> rows != null && !rows.equals("[]") && !rows.startsWith("[[0,"));
    }

    private String sqlRows(URI interlace, String sql) throws Exception {
        HttpResponse<String> answer = post(interlace.resolve("/sql"), "text/plain", sql);
        assertThat(answer.statusCode()).as(answer.body()).isEqualTo(200);
        return JSON.readTree(answer.body()).get("rows").toString();
    }

    private HttpResponse<String> get(URI uri) throws IOException, InterruptedException {
        return http.send(HttpRequest.newBuilder(uri).GET().build(), HttpResponse.BodyHandlers.ofString());
    }

    private HttpResponse<String> post(URI uri, String contentType, String body)
            throws IOException, InterruptedException {
        return http.send(HttpRequest.newBuilder(uri).header("Content-Type", contentType)
                .POST(HttpRequest.BodyPublishers.ofString(body)).build(), HttpResponse.BodyHandlers.ofString());
    }
}
