package dev.interlace.runtime.auth;

import java.util.Locale;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * What a key may do: {@code publish}, {@code publish:<stream>}, {@code read}, {@code consume},
 * {@code consume:<stream>}, {@code operate}, {@code metrics} or {@code admin} (everything).
 *
 * @param kind what is allowed
 * @param stream the one stream it is limited to, or null for every stream
 */
public record Scope(Kind kind, String stream) {

    private static final Pattern STREAM = Pattern.compile("[a-z][a-z0-9_]{0,62}");

    /** The kinds of access; only {@link #PUBLISH} and {@link #CONSUME} can be limited to one stream. */
    public enum Kind {
        PUBLISH, READ, CONSUME, OPERATE, METRICS, ADMIN;

        String text() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    public Scope {
        Objects.requireNonNull(kind, "kind");
        if (stream != null && kind != Kind.PUBLISH && kind != Kind.CONSUME) {
            throw new IllegalArgumentException(kind.text() + " cannot be limited to a stream");
        }
    }

    public static Scope of(Kind kind) {
        return new Scope(kind, null);
    }

    public static Scope publish(String stream) {
        return new Scope(Kind.PUBLISH, stream);
    }

    public static Scope consume(String stream) {
        return new Scope(Kind.CONSUME, stream);
    }

    /**
     * Parses {@code publish}, {@code publish:orders}, {@code read} ...
     *
     * @throws IllegalArgumentException naming what is allowed when the text is not a scope
     */
    public static Scope parse(String text) {
        String trimmed = text.strip();
        int colon = trimmed.indexOf(':');
        String kindText = colon < 0 ? trimmed : trimmed.substring(0, colon);
        Kind kind;
        try {
            kind = Kind.valueOf(kindText.toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("unknown scope \"" + text + "\"; use publish, publish:<stream>, read,"
                    + " consume, consume:<stream>, operate, metrics or admin");
        }
        if (!kindText.equals(kind.text())) {
            throw new IllegalArgumentException("scopes are lower case: " + kind.text() + ", not " + kindText);
        }
        if (colon < 0) {
            return of(kind);
        }
        String stream = trimmed.substring(colon + 1);
        if (!STREAM.matcher(stream).matches()) {
            throw new IllegalArgumentException("\"" + stream + "\" in scope \"" + text + "\" is not a stream name");
        }
        if (kind != Kind.PUBLISH && kind != Kind.CONSUME) {
            throw new IllegalArgumentException(kind.text() + " cannot be limited to a stream; only publish and"
                    + " consume can");
        }
        return new Scope(kind, stream);
    }

    /** Whether a key holding this scope may do what {@code required} names. */
    public boolean grants(Scope required) {
        if (kind == Kind.ADMIN) {
            return true;
        }
        return kind == required.kind && (stream == null || stream.equals(required.stream));
    }

    /** The text form, e.g. {@code publish:orders}. */
    @Override
    public String toString() {
        return stream == null ? kind.text() : kind.text() + ":" + stream;
    }
}
