package dev.interlace.runtime.stream;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import java.io.IOException;
import java.io.StringWriter;
import java.math.BigDecimal;
import java.time.DateTimeException;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The decoding rules of every column type (docs/streaming.md#decoding-rules), called by the generated decoders.
 *
 * <p>Each {@code read*} method expects the parser on the field's value token. It returns the typed value, or
 * {@code null} when the value is JSON {@code null} or invalid; in the invalid case (and for a null in a
 * {@code not null} column) it records why in {@code errors}. Structured values that are of the wrong type are
 * skipped entirely, so the parser always ends on the last token of the value.
 */
public final class Values {

    private static final Pattern TIMESTAMP = Pattern.compile(
            "(\\d{4})-(\\d{2})-(\\d{2})[Tt](\\d{2}):(\\d{2}):(\\d{2})(?:\\.(\\d+))?([Zz]|[+-]\\d{2}:\\d{2})?");
    private static final Pattern DATE = Pattern.compile("(\\d{4})-(\\d{2})-(\\d{2})");
    private static final Pattern DECIMAL_TEXT = Pattern.compile("-?(?:0|[1-9]\\d*)(?:\\.\\d+)?(?:[eE][+-]?\\d+)?");
    private static final String TIMESTAMP_EXAMPLE = "2026-11-29T08:30:00.123456Z";

    private Values() {}

    /** A string column: JSON strings only, which must be valid Unicode (no unpaired surrogates). */
    public static String readString(JsonParser parser, String field, boolean notNull, FieldErrors errors)
            throws IOException {
        JsonToken token = parser.currentToken();
        if (token == JsonToken.VALUE_STRING) {
            String text = parser.getText();
            if (hasUnpairedSurrogate(text)) {
                errors.add(field, "is not valid Unicode (it contains an unpaired surrogate escape)");
                return null;
            }
            return text;
        }
        return wrongType(parser, field, notNull, errors, "a string");
    }

    /** A bigint column: JSON integers in the signed 64-bit range; no fraction, exponent, string or boolean. */
    public static Long readBigint(JsonParser parser, String field, boolean notNull, FieldErrors errors)
            throws IOException {
        JsonToken token = parser.currentToken();
        if (token == JsonToken.VALUE_NUMBER_INT) {
            JsonParser.NumberType numberType = parser.getNumberType();
            if (numberType == JsonParser.NumberType.BIG_INTEGER) {
                errors.add(field, "integer " + parser.getText() + " is out of range for bigint ("
                        + Long.MIN_VALUE + " to " + Long.MAX_VALUE + ")");
                return null;
            }
            return parser.getLongValue();
        }
        if (token == JsonToken.VALUE_NUMBER_FLOAT) {
            errors.add(field, "expected an integer, got " + parser.getText()
                    + " (a number with a fraction or exponent); send it without them, e.g. 5 rather than 5.0");
            return null;
        }
        return wrongType(parser, field, notNull, errors, "an integer");
    }

    /** A double column: any JSON number that is finite as a 64-bit float. */
    public static Double readDouble(JsonParser parser, String field, boolean notNull, FieldErrors errors)
            throws IOException {
        JsonToken token = parser.currentToken();
        if (token == JsonToken.VALUE_NUMBER_INT || token == JsonToken.VALUE_NUMBER_FLOAT) {
            double value = parser.getDoubleValue();
            if (Double.isInfinite(value)) {
                errors.add(field, "number " + parser.getText() + " is out of range for double");
                return null;
            }
            return value;
        }
        return wrongType(parser, field, notNull, errors, "a number");
    }

    /**
     * A decimal column: a JSON number or a string holding one, stored exactly at the column's scale. A value that
     * would need rounding (more fractional digits than the scale) or more integer digits than
     * {@code precision - scale} is an error; trailing zeros beyond the scale are not digits that need rounding.
     */
    public static BigDecimal readDecimal(
            JsonParser parser, String field, int precision, int scale, boolean notNull, FieldErrors errors)
            throws IOException {
        JsonToken token = parser.currentToken();
        String text;
        if (token == JsonToken.VALUE_NUMBER_INT || token == JsonToken.VALUE_NUMBER_FLOAT) {
            text = parser.getText();
        } else if (token == JsonToken.VALUE_STRING) {
            text = parser.getText();
            if (!DECIMAL_TEXT.matcher(text).matches()) {
                errors.add(field, "string \"" + abbreviate(text) + "\" is not a decimal number; send a JSON number"
                        + " or a numeric string such as \"49.50\"");
                return null;
            }
        } else {
            return wrongType(parser, field, notNull, errors, "a decimal number or numeric string");
        }
        BigDecimal value;
        try {
            value = new BigDecimal(text);
        } catch (NumberFormatException e) {
            errors.add(field, abbreviate(text) + " is out of range for decimal(" + precision + "," + scale + ")");
            return null;
        }
        return fitDecimal(value, field, precision, scale, errors);
    }

    private static BigDecimal fitDecimal(BigDecimal value, String field, int precision, int scale, FieldErrors errors) {
        BigDecimal significant = value.signum() == 0 ? BigDecimal.ZERO : value.stripTrailingZeros();
        if (significant.scale() > scale) {
            errors.add(field, abbreviate(value.toString()) + " has more than " + scale + " fractional digit"
                    + (scale == 1 ? "" : "s") + " (decimal(" + precision + "," + scale + ")); it is never rounded");
            return null;
        }
        long integerDigits = (long) significant.precision() - significant.scale();
        if (integerDigits > precision - scale) {
            errors.add(field, abbreviate(value.toString()) + " has more than " + (precision - scale)
                    + " integer digits (decimal(" + precision + "," + scale + "))");
            return null;
        }
        return significant.setScale(scale);
    }

    /** A boolean column: JSON {@code true} or {@code false} only. */
    public static Boolean readBoolean(JsonParser parser, String field, boolean notNull, FieldErrors errors)
            throws IOException {
        JsonToken token = parser.currentToken();
        if (token == JsonToken.VALUE_TRUE) {
            return Boolean.TRUE;
        }
        if (token == JsonToken.VALUE_FALSE) {
            return Boolean.FALSE;
        }
        return wrongType(parser, field, notNull, errors, "true or false");
    }

    /**
     * A timestamp column: an RFC 3339 string with {@code Z} or a {@code ±hh:mm} offset and at most six fractional
     * digits, normalised to UTC.
     */
    public static Instant readTimestamp(JsonParser parser, String field, boolean notNull, FieldErrors errors)
            throws IOException {
        JsonToken token = parser.currentToken();
        if (token != JsonToken.VALUE_STRING) {
            return wrongType(parser, field, notNull, errors, "an RFC 3339 timestamp string such as \""
                    + TIMESTAMP_EXAMPLE + "\"");
        }
        String text = parser.getText();
        Matcher matcher = TIMESTAMP.matcher(text);
        if (!matcher.matches()) {
            errors.add(field, "\"" + abbreviate(text) + "\" is not an RFC 3339 timestamp; expected e.g. \""
                    + TIMESTAMP_EXAMPLE + "\"");
            return null;
        }
        String fraction = matcher.group(7);
        if (fraction != null && fraction.length() > 6) {
            errors.add(field, "\"" + text + "\" has " + fraction.length()
                    + " fractional digits; timestamps keep microseconds, so send at most 6");
            return null;
        }
        String offset = matcher.group(8);
        if (offset == null) {
            errors.add(field, "\"" + text + "\" has no UTC offset; add \"Z\" for UTC or an offset such as \"+02:00\"");
            return null;
        }
        try {
            int nanos = fraction == null ? 0 : Integer.parseInt((fraction + "00000000").substring(0, 9));
            LocalDateTime local = LocalDateTime.of(
                    Integer.parseInt(matcher.group(1)), Integer.parseInt(matcher.group(2)),
                    Integer.parseInt(matcher.group(3)), Integer.parseInt(matcher.group(4)),
                    Integer.parseInt(matcher.group(5)), Integer.parseInt(matcher.group(6)), nanos);
            ZoneOffset zone = offset.equalsIgnoreCase("z") ? ZoneOffset.UTC : ZoneOffset.of(offset);
            return local.toInstant(zone);
        } catch (DateTimeException e) {
            errors.add(field, "\"" + text + "\" is not a valid timestamp: " + e.getMessage());
            return null;
        }
    }

    /** A date column: a {@code YYYY-MM-DD} string naming a real calendar day. */
    public static LocalDate readDate(JsonParser parser, String field, boolean notNull, FieldErrors errors)
            throws IOException {
        JsonToken token = parser.currentToken();
        if (token != JsonToken.VALUE_STRING) {
            return wrongType(parser, field, notNull, errors, "a date string such as \"2026-11-29\"");
        }
        String text = parser.getText();
        Matcher matcher = DATE.matcher(text);
        if (!matcher.matches()) {
            errors.add(field, "\"" + abbreviate(text) + "\" is not a date; expected YYYY-MM-DD, e.g. \"2026-11-29\"");
            return null;
        }
        try {
            return LocalDate.of(Integer.parseInt(matcher.group(1)), Integer.parseInt(matcher.group(2)),
                    Integer.parseInt(matcher.group(3)));
        } catch (DateTimeException e) {
            errors.add(field, "\"" + text + "\" is not a valid date: " + e.getMessage());
            return null;
        }
    }

    /** A json column: any JSON value, kept as compact JSON text; JSON {@code null} is SQL NULL. */
    public static String readJson(JsonParser parser, String field, boolean notNull, FieldErrors errors)
            throws IOException {
        if (parser.currentToken() == JsonToken.VALUE_NULL) {
            return wrongType(parser, field, notNull, errors, "a JSON value");
        }
        String json = copyToText(parser);
        if (hasUnpairedSurrogate(json)) {
            errors.add(field, "is not valid Unicode (it contains an unpaired surrogate escape)");
            return null;
        }
        return json;
    }

    /** Records that a {@code not null} column is absent from the event. */
    public static void missing(String field, FieldErrors errors) {
        errors.add(field, "is missing; the column is declared not null");
    }

    /**
     * A field the schema does not declare, for streams that reject or quarantine drift: an error naming the
     * declared columns. The value is skipped (still checked for duplicate fields).
     */
    public static void undeclared(JsonParser parser, String field, Set<String> seenUndeclared,
            List<String> declaredColumns, FieldErrors errors) throws IOException {
        if (!seenUndeclared.add(field)) {
            throw new DuplicateFieldException(parser, field);
        }
        copy(parser, null);
        errors.add(field, "is not a declared column; declared columns are " + String.join(", ", declaredColumns));
    }

    /**
     * A field the schema does not declare, for streams that evolve: kept as JSON text for a new column, provided
     * its name is a valid column name that does not collide, ignoring case, with a declared column.
     */
    public static void evolving(JsonParser parser, String field, Map<String, String> undeclaredFields,
            List<String> declaredColumns, FieldErrors errors) throws IOException {
        if (undeclaredFields.containsKey(field)) {
            throw new DuplicateFieldException(parser, field);
        }
        String json = copyToText(parser);
        undeclaredFields.put(field, json);
        String lower = field.toLowerCase(Locale.ROOT);
        if (declaredColumns.contains(lower)) {
            errors.add(field, "cannot become a new column: it differs only in case from column " + lower);
        } else if (!Column.NAME.matcher(field).matches()) {
            errors.add(field, "cannot become a new column: names must match " + Column.NAME.pattern()
                    + " (lower-case letters, digits and _, starting with a letter)");
        } else if (hasUnpairedSurrogate(json)) {
            errors.add(field, "is not valid Unicode (it contains an unpaired surrogate escape)");
        }
    }

    /** Throws when a declared field appears a second time in the same object. */
    public static void requireFirst(JsonParser parser, String field, boolean alreadySeen) throws IOException {
        if (alreadySeen) {
            throw new DuplicateFieldException(parser, field);
        }
    }

    /** Describes a token for an error message, e.g. {@code "a string"}. */
    public static String describe(JsonToken token) {
        if (token == null) {
            return "nothing";
        }
        return switch (token) {
            case START_OBJECT -> "an object";
            case START_ARRAY -> "an array";
            case VALUE_STRING -> "a string";
            case VALUE_NUMBER_INT, VALUE_NUMBER_FLOAT -> "a number";
            case VALUE_TRUE, VALUE_FALSE -> "a boolean";
            case VALUE_NULL -> "null";
            default -> token.toString();
        };
    }

    private static <V> V wrongType(JsonParser parser, String field, boolean notNull, FieldErrors errors,
            String expected) throws IOException {
        JsonToken token = parser.currentToken();
        if (token == JsonToken.VALUE_NULL) {
            if (notNull) {
                errors.add(field, "is null; the column is declared not null");
            }
            return null;
        }
        String got = describe(token);
        if (token.isScalarValue()) {
            got += " " + abbreviate(token == JsonToken.VALUE_STRING ? "\"" + parser.getText() + "\"" : parser.getText());
        }
        copy(parser, null);
        errors.add(field, "expected " + expected + ", got " + got);
        return null;
    }

    private static String copyToText(JsonParser parser) throws IOException {
        StringWriter out = new StringWriter();
        try (JsonGenerator generator = EventJson.FACTORY.createGenerator(out)) {
            copy(parser, generator);
        }
        return out.toString();
    }

    /**
     * Walks the value at the parser's current token to its end, refusing objects that name a field twice, and
     * writes it to {@code generator} when one is given. Numbers are copied exactly as spelled.
     */
    private static void copy(JsonParser parser, JsonGenerator generator) throws IOException {
        JsonToken token = parser.currentToken();
        if (token == JsonToken.START_OBJECT) {
            if (generator != null) {
                generator.writeStartObject();
            }
            Set<String> names = new HashSet<>();
            while (parser.nextToken() == JsonToken.FIELD_NAME) {
                String name = parser.currentName();
                if (!names.add(name)) {
                    throw new DuplicateFieldException(parser, name);
                }
                if (generator != null) {
                    generator.writeFieldName(name);
                }
                parser.nextToken();
                copy(parser, generator);
            }
            if (generator != null) {
                generator.writeEndObject();
            }
        } else if (token == JsonToken.START_ARRAY) {
            if (generator != null) {
                generator.writeStartArray();
            }
            while (parser.nextToken() != JsonToken.END_ARRAY) {
                copy(parser, generator);
            }
            if (generator != null) {
                generator.writeEndArray();
            }
        } else if (generator != null) {
            if (token == JsonToken.VALUE_NUMBER_INT || token == JsonToken.VALUE_NUMBER_FLOAT) {
                generator.writeNumber(parser.getText());
            } else {
                generator.copyCurrentEvent(parser);
            }
        }
    }

    private static boolean hasUnpairedSurrogate(String text) {
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (Character.isHighSurrogate(c)) {
                if (i + 1 < text.length() && Character.isLowSurrogate(text.charAt(i + 1))) {
                    i++;
                } else {
                    return true;
                }
            } else if (Character.isLowSurrogate(c)) {
                return true;
            }
        }
        return false;
    }

    private static String abbreviate(String text) {
        return text.length() <= 64 ? text : text.substring(0, 61) + "...";
    }
}
