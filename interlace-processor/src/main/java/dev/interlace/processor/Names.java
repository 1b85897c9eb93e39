package dev.interlace.processor;

import java.util.regex.Pattern;

/**
 * The one rule for the names users give streams, columns and models, as the runtime checks them: they become SQL
 * identifiers and file names, so they are lower-case and at most 63 characters.
 */
final class Names {

    /** The pattern, as quoted in diagnostics. */
    static final String RULE = "[a-z][a-z0-9_]{0,62}";

    private static final Pattern NAME = Pattern.compile(RULE);

    private Names() {}

    /** Whether {@code name} follows {@link #RULE}. */
    static boolean isValid(String name) {
        return NAME.matcher(name).matches();
    }
}
