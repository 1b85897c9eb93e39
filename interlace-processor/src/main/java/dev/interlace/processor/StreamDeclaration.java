package dev.interlace.processor;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.List;
import java.util.OptionalLong;

/**
 * A {@code @Stream} that passed validation: everything the generator needs.
 *
 * @param packageName package of the annotated class (and of the generated types)
 * @param simpleName base for generated type names, e.g. {@code Orders} gives {@code OrdersEvent}
 * @param declaredBy qualified name of the annotated class
 * @param name stream name
 * @param columns columns in declaration order
 * @param idempotencyKey key column or null
 * @param retention retention as declared, or null
 * @param retentionMillis retention in milliseconds, empty for forever
 * @param onSchemaDrift the constant name of the drift policy
 * @param partitions how many partitions (1 for a stream as it always was)
 * @param partitionKey the column choosing a keyless stream's partition, or null
 */
record StreamDeclaration(
        String packageName,
        String simpleName,
        String declaredBy,
        String name,
        List<ColumnSpec> columns,
        String idempotencyKey,
        String retention,
        OptionalLong retentionMillis,
        String onSchemaDrift,
        int partitions,
        String partitionKey) {

    String eventType() {
        return simpleName + "Event";
    }

    String decoderType() {
        return simpleName + "Decoder";
    }

    String descriptorType() {
        return simpleName + "Stream";
    }

    String qualified(String simple) {
        return packageName.isEmpty() ? simple : packageName + "." + simple;
    }

    /** A fingerprint of the canonical schema: the first 16 hex digits of SHA-256 over the column declarations. */
    String schemaVersion() {
        StringBuilder canonical = new StringBuilder();
        for (ColumnSpec column : columns) {
            canonical.append(column.declaration()).append('\n');
        }
        try {
            byte[] digest = MessageDigest.getInstance("SHA-256")
                    .digest(canonical.toString().getBytes(StandardCharsets.UTF_8));
            return HexFormat.of().formatHex(digest, 0, 8);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every Java platform has SHA-256", e);
        }
    }
}
