package dev.interlace.runtime.cli;

/**
 * Text from the server made safe to print on a terminal: every control character (Unicode category Cc: U+0000 to
 * U+001F, U+007F to U+009F) shown as {@code \xHH}.
 *
 * <p>What the CLI prints is largely what clients wrote — a refused request's path, a field name, a value — and the
 * server accepts it from anyone who can publish, in open mode from anyone at all. Printed raw, an ESC or a C1 CSI
 * starts a terminal escape sequence that can erase the lines above, move the cursor, retitle the window or, on some
 * terminals, answer with keystrokes; shown as {@code \x1b} it is only text. A backslash is left as it is, so escaping
 * twice changes nothing and a printer may escape wherever it is convenient.
 */
final class TerminalText {

    private TerminalText() {}

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
}
