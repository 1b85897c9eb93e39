package dev.interlace.processor;

import java.util.OptionalLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Parses a retention such as {@code 7d} into milliseconds. */
final class Retention {

    private static final Pattern FORM = Pattern.compile("([0-9]{1,12})([smhdw])");

    private Retention() {}

    /**
     * The retention in milliseconds, or empty when {@code text} is not {@code <integer><s|m|h|d|w>} with a positive
     * integer.
     */
    static OptionalLong parseMillis(String text) {
        Matcher matcher = FORM.matcher(text);
        if (!matcher.matches()) {
            return OptionalLong.empty();
        }
        long amount = Long.parseLong(matcher.group(1));
        long unitMillis = switch (matcher.group(2)) {
            case "s" -> 1_000L;
            case "m" -> 60_000L;
            case "h" -> 3_600_000L;
            case "d" -> 86_400_000L;
            case "w" -> 604_800_000L;
            default -> throw new IllegalStateException("unreachable: the pattern only allows s, m, h, d, w");
        };
        if (amount == 0 || amount > Long.MAX_VALUE / unitMillis) {
            return OptionalLong.empty();
        }
        return OptionalLong.of(amount * unitMillis);
    }
}
