package dev.interlace.runtime.sql;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;

/**
 * Decides whether a query may run through {@code POST /sql}: exactly one statement, of a read-only kind (SELECT,
 * WITH, VALUES, DESCRIBE, SHOW, EXPLAIN). The warehouse also runs every query in a transaction it rolls back, so
 * this check is what gives users a clear 403, not the only guard.
 */
public final class ReadOnlySql {

    /** Statement kinds that only read. */
    public static final Set<String> ALLOWED = Set.of("SELECT", "WITH", "VALUES", "DESCRIBE", "SHOW", "EXPLAIN");

    private ReadOnlySql() {}

    /** Why the query may not run, or empty when it may. */
    public static Optional<Problem> check(String sql) {
        List<String> statements = statements(sql);
        if (statements.size() != 1) {
            return Optional.of(new Problem(false, "send exactly one SQL statement (found "
                    + (statements.isEmpty() ? "none" : statements.size() + ", separated by ;") + ")"));
        }
        String keyword = firstKeyword(statements.get(0));
        if (!ALLOWED.contains(keyword)) {
            return Optional.of(new Problem(true, "only read-only statements run here (" + String.join(", ",
                    ALLOWED.stream().sorted().toList()) + "); got " + (keyword.isEmpty() ? "no keyword" : keyword)));
        }
        return Optional.empty();
    }

    /**
     * Why a query was refused.
     *
     * @param forbidden true when it is a statement kind that writes (403), false when it is not one statement (400)
     */
    public record Problem(boolean forbidden, String message) {}

    /** The non-empty statements of {@code sql}, split on semicolons outside strings, identifiers and comments. */
    static List<String> statements(String sql) {
        List<String> statements = new ArrayList<>();
        int start = 0;
        for (int i = 0; i <= sql.length(); i++) {
            if (i == sql.length() || sql.charAt(i) == ';') {
                String part = sql.substring(start, i);
                if (!stripComments(part).isBlank()) {
                    statements.add(part);
                }
                start = i + 1;
                continue;
            }
            int end = skipQuoted(sql, i);
            if (end > i) {
                i = end - 1;
            }
        }
        return statements;
    }

    /** If a string, quoted identifier, comment or dollar-quoted text starts at {@code i}, the index after it. */
    private static int skipQuoted(String sql, int i) {
        char c = sql.charAt(i);
        if (c == '\'' || c == '"') {
            int j = i + 1;
            while (j < sql.length()) {
                if (sql.charAt(j) == c) {
                    if (j + 1 < sql.length() && sql.charAt(j + 1) == c) {
                        j += 2;
                        continue;
                    }
                    return j + 1;
                }
                j++;
            }
            return sql.length();
        }
        if (c == '-' && i + 1 < sql.length() && sql.charAt(i + 1) == '-') {
            int newline = sql.indexOf('\n', i);
            return newline < 0 ? sql.length() : newline + 1;
        }
        if (c == '/' && i + 1 < sql.length() && sql.charAt(i + 1) == '*') {
            int close = sql.indexOf("*/", i + 2);
            return close < 0 ? sql.length() : close + 2;
        }
        if (c == '$') {
            int tagEnd = sql.indexOf('$', i + 1);
            if (tagEnd > i && sql.substring(i + 1, tagEnd).matches("[A-Za-z_0-9]*")) {
                String tag = sql.substring(i, tagEnd + 1);
                int close = sql.indexOf(tag, tagEnd + 1);
                return close < 0 ? sql.length() : close + tag.length();
            }
        }
        return i;
    }

    private static String stripComments(String sql) {
        StringBuilder out = new StringBuilder();
        for (int i = 0; i < sql.length(); i++) {
            char c = sql.charAt(i);
            boolean comment = (c == '-' && i + 1 < sql.length() && sql.charAt(i + 1) == '-')
                    || (c == '/' && i + 1 < sql.length() && sql.charAt(i + 1) == '*');
            int end = skipQuoted(sql, i);
            if (comment) {
                out.append(' ');
                i = end - 1;
            } else if (end > i) {
                out.append(sql, i, end);
                i = end - 1;
            } else {
                out.append(c);
            }
        }
        return out.toString();
    }

    private static String firstKeyword(String statement) {
        String text = stripComments(statement).strip();
        while (text.startsWith("(")) {
            text = text.substring(1).strip();
        }
        int end = 0;
        while (end < text.length() && Character.isLetter(text.charAt(end))) {
            end++;
        }
        return text.substring(0, end).toUpperCase(Locale.ROOT);
    }
}
