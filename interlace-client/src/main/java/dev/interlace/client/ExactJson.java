package dev.interlace.client;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;

/**
 * JSON for readers of stored events (the consumer, the CLI) that keeps numbers as they were sent.
 *
 * <p>A default {@link ObjectMapper} reads {@code 49.50} as the double {@code 49.5} and {@code 0.1000000000000000055}
 * as {@code 0.1}; a reader asking "what did I send?" must get what it sent. The server stored what passed its limits
 * when it was published, possibly under older, looser ones, so reading back sets no limit on nesting or number length.
 */
public final class ExactJson {

    private ExactJson() {}

    /**
     * A JSON factory with no limit on nesting, number or string length: for reading JSON the server already
     * accepted (under the limits of its day), which must be read as it is.
     */
    public static JsonFactory unlimitedFactory() {
        return JsonFactory.builder()
                .streamReadConstraints(StreamReadConstraints.builder()
                        .maxNestingDepth(Integer.MAX_VALUE)
                        .maxNumberLength(Integer.MAX_VALUE)
                        .maxStringLength(Integer.MAX_VALUE)
                        .build())
                .build();
    }

    /**
     * A new mapper that reads decimals as exact {@link java.math.BigDecimal}s with their scale ({@code 49.50} stays
     * {@code 49.50}) and integers of any length as {@link java.math.BigInteger}s.
     */
    public static ObjectMapper mapper() {
        return new ObjectMapper(unlimitedFactory())
                .enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS)
                .setNodeFactory(JsonNodeFactory.withExactBigDecimals(true));
    }
}
