package dev.interlace.integration.decoding;

import dev.interlace.annotations.Stream;

/**
 * A test-only stream with one nullable column of every type (and a column named after a Java keyword), rejecting
 * drift. The processor generates {@code AllTypesEvent}, {@code AllTypesDecoder} and {@code AllTypesStream}.
 */
@Stream(name = "decoding_all_types",
        schema = {"s string", "b bigint", "d double", "m decimal(12,2)", "f boolean", "t timestamp", "day date",
                  "j json", "class string"},
        idempotencyKey = "s")
public final class AllTypes {}
