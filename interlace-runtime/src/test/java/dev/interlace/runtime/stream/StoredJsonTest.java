package dev.interlace.runtime.stream;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class StoredJsonTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    @Test
    void storedJsonIsWrittenExactlyAsStored() throws Exception {
        String stored = "{\"a\":49.50,\"b\":0.1000000000000000055,\"c\":1e999999,\"d\":" + "9".repeat(2000) + "}";
        ObjectNode body = JSON.createObjectNode();
        body.set("event", StoredJson.value(stored.getBytes(StandardCharsets.UTF_8)));
        assertThat(JSON.writeValueAsString(body)).isEqualTo("{\"event\":" + stored + "}");
    }

    @Test
    void storedTextThatIsNotOneJsonValueIsAnsweredAsAString() throws Exception {
        for (String damaged : new String[] {"{\"a\":", "{} {}", "", "not json"}) {
            ObjectNode body = JSON.createObjectNode();
            body.set("event", StoredJson.value(damaged));
            assertThat(JSON.readTree(JSON.writeValueAsString(body)).get("event").asText()).isEqualTo(damaged);
        }
    }
}
