package dev.interlace.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.interlace.runtime.config.ConfigLoader;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * {@code META-INF/spring-configuration-metadata.json}, which IDEs complete {@code interlace.*} properties from, names
 * every {@code serve} flag with its description, type and default: a flag added to {@link ConfigLoader#SETTINGS}
 * without its property here fails this test, which writes the file as it should be to
 * {@code target/spring-configuration-metadata.json}.
 */
class ConfigurationMetadataTest {

    private static final ObjectMapper JSON = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

    @Test
    void theMetadataDescribesEveryServeFlagAndTheStartersOwnProperties() throws Exception {
        JsonNode shipped;
        try (InputStream in = getClass().getResourceAsStream("/META-INF/spring-configuration-metadata.json")) {
            assertThat(in).as("META-INF/spring-configuration-metadata.json in the starter's jar").isNotNull();
            shipped = JSON.readTree(in);
        }
        JsonNode expected = JSON.readTree(JSON.writeValueAsString(expected())); // numbers as the file holds them
        if (!shipped.equals(expected)) {
            Files.writeString(Path.of("target", "spring-configuration-metadata.json"),
                    JSON.writeValueAsString(expected) + "\n");
        }
        assertThat(shipped).as("the shipped metadata; the expected file is in target/").isEqualTo(expected);
    }

    private static JsonNode expected() {
        ObjectNode root = JSON.createObjectNode();
        ArrayNode groups = root.putArray("groups");
        group(groups, "interlace", "The Interlace server run inside the application: each property is the serve flag"
                + " of the same name.");
        group(groups, "interlace.client", "The InterlaceClient bean, made when interlace.client.url is set.");
        ArrayNode properties = root.putArray("properties");
        ObjectNode enabled = property(properties, "interlace.enabled", "java.lang.Boolean",
                "Whether to run the Interlace server inside the application.");
        enabled.put("defaultValue", true);
        for (ConfigLoader.Setting setting : ConfigLoader.SETTINGS) {
            String type = switch (setting.value()) {
                case "" -> "java.lang.Boolean";
                case "N", "BYTES", "MS" -> setting.flag().equals("port") ? "java.lang.Integer" : "java.lang.Long";
                default -> setting.value().contains(",") ? "java.util.List<java.lang.String>" : "java.lang.String";
            };
            ObjectNode property = property(properties, "interlace." + setting.flag(), type,
                    setting.description() + " (serve's --" + setting.flag() + ").");
            if (!setting.defaultValue().isEmpty()) {
                switch (type) {
                    case "java.lang.Boolean" -> property.put("defaultValue", Boolean.parseBoolean(
                            setting.defaultValue()));
                    case "java.lang.Integer", "java.lang.Long" -> property.put("defaultValue",
                            Long.parseLong(setting.defaultValue()));
                    default -> property.put("defaultValue", setting.defaultValue());
                }
            }
        }
        property(properties, "interlace.client.url", "java.lang.String",
                "Base URL of the Interlace server the InterlaceClient bean publishes to, e.g. http://127.0.0.1:8000.");
        property(properties, "interlace.client.api-key", "java.lang.String",
                "API key the InterlaceClient bean sends as Authorization: Bearer.");
        property(properties, "interlace.client.trusted-certificates", "java.lang.String",
                "PEM file of certificates the InterlaceClient bean trusts besides the JVM's defaults.");
        return root;
    }

    private static void group(ArrayNode groups, String name, String description) {
        ObjectNode group = groups.addObject();
        group.put("name", name);
        group.put("description", description);
    }

    private static ObjectNode property(ArrayNode properties, String name, String type, String description) {
        ObjectNode property = properties.addObject();
        property.put("name", name);
        property.put("type", type);
        property.put("description", description);
        return property;
    }
}
