package dev.interlace.processor;

import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Parses one column declaration, {@code "<column> <type> [not null]"}, into a {@link ColumnSpec} or an error. */
final class SchemaParser {

    /** A parse failure: which diagnostic and what to tell the user. */
    record Failure(DiagnosticId id, String message) {}

    /** Either a column or the reason it is not one. */
    record Result(Optional<ColumnSpec> column, Optional<Failure> failure) {
        static Result ok(ColumnSpec column) {
            return new Result(Optional.of(column), Optional.empty());
        }

        static Result fail(DiagnosticId id, String message) {
            return new Result(Optional.empty(), Optional.of(new Failure(id, message)));
        }
    }

    static final List<String> RESERVED_COLUMNS = List.of("_offset", "_ingested_at", "_request_id");

    private static final Pattern DECLARATION = Pattern.compile(
            "\\s*(\\S+)\\s+(decimal\\s*\\([^)]*\\)|\\S+)(.*)", Pattern.CASE_INSENSITIVE | Pattern.DOTALL);
    private static final Pattern DECIMAL = Pattern.compile(
            "decimal\\s*\\(\\s*(\\d{1,9})\\s*,\\s*(\\d{1,9})\\s*\\)", Pattern.CASE_INSENSITIVE);
    private static final Pattern NOT_NULL = Pattern.compile("\\s*not\\s+null\\s*", Pattern.CASE_INSENSITIVE);
    private static final String FORM = "write columns as \"<column> <type> [not null]\", e.g. \"order_id string not null\"";

    private SchemaParser() {}

    static Result parse(String declaration) {
        Matcher matcher = DECLARATION.matcher(declaration);
        if (!matcher.matches()) {
            return Result.fail(DiagnosticId.COLUMN_SPEC,
                    "column \"" + declaration + "\" has no type; " + FORM);
        }
        String name = matcher.group(1);
        String type = matcher.group(2);
        String rest = matcher.group(3);
        if (RESERVED_COLUMNS.contains(name)) {
            return Result.fail(DiagnosticId.RESERVED_COLUMN, "column \"" + name + "\" is reserved: every stream"
                    + " table adds " + String.join(", ", RESERVED_COLUMNS) + " itself; rename the column");
        }
        if (!Names.isValid(name)) {
            return Result.fail(DiagnosticId.COLUMN_SPEC, "column name \"" + name + "\" is not valid: use lower-case"
                    + " letters, digits and _ , starting with a letter, at most 63 characters (" + Names.RULE + ")");
        }
        boolean notNull = false;
        if (!rest.isBlank()) {
            if (!NOT_NULL.matcher(rest).matches()) {
                return Result.fail(DiagnosticId.COLUMN_SPEC, "column \"" + name + "\" has \"" + rest.strip()
                        + "\" after its type; only \"not null\" may follow the type; " + FORM);
            }
            notNull = true;
        }
        Matcher decimal = DECIMAL.matcher(type);
        if (decimal.matches()) {
            int precision = Integer.parseInt(decimal.group(1));
            int scale = Integer.parseInt(decimal.group(2));
            if (precision < 1 || precision > 38 || scale > precision) {
                return Result.fail(DiagnosticId.DECIMAL_RANGE, "column \"" + name + "\" has type " + type
                        + ": precision must be 1 to 38 and scale 0 to the precision, e.g. decimal(12,2)");
            }
            return Result.ok(new ColumnSpec(name, ColumnKind.DECIMAL, precision, scale, notNull));
        }
        Optional<ColumnKind> kind = ColumnKind.forName(type);
        if (kind.isEmpty()) {
            String hint = type.toLowerCase(Locale.ROOT).startsWith("decimal")
                    ? "; decimal needs a precision and scale, e.g. decimal(12,2)"
                    : "";
            return Result.fail(DiagnosticId.UNKNOWN_TYPE, "column \"" + name + "\" has unknown type \"" + type
                    + "\"" + hint + "; expected one of " + ColumnKind.VALID_TYPES);
        }
        return Result.ok(new ColumnSpec(name, kind.get(), 0, 0, notNull));
    }
}
