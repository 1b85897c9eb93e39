package dev.interlace.runtime.cli;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.SerializableString;
import com.fasterxml.jackson.core.io.CharacterEscapes;
import com.fasterxml.jackson.core.io.SerializedString;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.UncheckedIOException;

/**
 * Text from the server made safe to print on a terminal: every control character (Unicode category Cc: U+0000 to
 * U+001F, U+007F to U+009F) shown as {@code \xHH}.
 *
 * <p>What the CLI prints is largely what clients wrote — a refused request's path, a field name, a value — and the
 * server accepts it from anyone who can publish, in open mode from anyone at all. Printed raw, an ESC or a C1 CSI
 * starts a terminal escape sequence that can erase the lines above, move the cursor, retitle the window or, on some
 * terminals, answer with keystrokes; shown as {@code \x1b} it is only text. A backslash is left as it is, so escaping
 * twice changes nothing and a printer may escape wherever it is convenient.
 *
 * <p>JSON the CLI prints ({@code --json}, {@code tail}) is written by {@link #json} and {@link #prettyJson}: JSON
 * escapes U+0000 to U+001F already, and these escape DEL and the C1 controls too (DEL as a backslash and
 * {@code u007F}): the same JSON value, so a program reading it sees no difference.
 */
final class TerminalText {

    private static final ObjectMapper JSON = new ObjectMapper();

    static {
        JSON.getFactory().setCharacterEscapes(new ControlEscapes());
    }

    private TerminalText() {}

    /** {@code node} as compact JSON with every control character escaped. */
    static String json(JsonNode node) {
        try {
            return JSON.writeValueAsString(node);
        } catch (JsonProcessingException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** {@code node} as indented JSON with every control character escaped. */
    static String prettyJson(JsonNode node) {
        try {
            return JSON.writerWithDefaultPrettyPrinter().writeValueAsString(node);
        } catch (JsonProcessingException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** {@code text} with each control character replaced by {@code \xHH}; the same string when it has none. */
    static String escape(String text) {
        int first = firstControl(text);
        if (first < 0) {
            return text;
        }
        StringBuilder escaped = new StringBuilder(text.length() + 8).append(text, 0, first);
        for (int i = first; i < text.length(); i++) {
            char c = text.charAt(i);
            if (Character.isISOControl(c)) {
                escaped.append(String.format("\\x%02x", (int) c));
            } else {
                escaped.append(c);
            }
        }
        return escaped.toString();
    }

    private static int firstControl(String text) {
        for (int i = 0; i < text.length(); i++) {
            if (Character.isISOControl(text.charAt(i))) {
                return i;
            }
        }
        return -1;
    }

    /** Jackson's escapes plus DEL and the C1 controls, as JSON escapes (backslash, {@code u00XX}). */
    private static final class ControlEscapes extends CharacterEscapes {

        private static final int[] ASCII = standardAsciiEscapesForJSON();

        static {
            ASCII[0x7f] = ESCAPE_STANDARD;
        }

        @Override
        public int[] getEscapeCodesForAscii() {
            return ASCII;
        }

        @Override
        public SerializableString getEscapeSequence(int ch) {
            return ch >= 0x80 && ch <= 0x9f ? new SerializedString(String.format("\\u%04X", ch)) : null;
        }
    }
}
