package dev.interlace.runtime.sql;

import java.util.Locale;

/**
 * A rough reading of SQL text, for messages only: how many statements it seems to hold and the keyword each seems
 * to start with. It never decides whether a query may run — DuckDB's own parser does (a hand-written lexer that
 * disagrees with DuckDB's on a single comment or string form lets a write through) — it only words a refusal, e.g.
 * whether "not a query" was really "several statements".
 */
public final class StatementText {

    private StatementText() {}

    /** The number of non-empty statements, splitting on semicolons outside strings, identifiers and comments. */
    public static int statementCount(String sql) {
        int count = 0;
        boolean content = false;
        for (int i = 0; i < sql.length(); i++) {
            char c = sql.charAt(i);
            int end = skip(sql, i);
            if (end > i) {
                content |= !isComment(sql, i);
                i = end - 1;
            } else if (c == ';') {
                count += content ? 1 : 0;
                content = false;
            } else if (!Character.isWhitespace(c)) {
                content = true;
            }
        }
        return count + (content ? 1 : 0);
    }

    /** The first word of the text outside comments and opening parentheses, upper case; empty when there is none. */
    public static String firstKeyword(String sql) {
        int i = 0;
        while (i < sql.length()) {
            int end = skip(sql, i);
            if (end > i && isComment(sql, i)) {
                i = end;
            } else if (Character.isWhitespace(sql.charAt(i)) || sql.charAt(i) == '(') {
                i++;
            } else {
                break;
            }
        }
        int end = i;
        while (end < sql.length() && Character.isLetter(sql.charAt(end))) {
            end++;
        }
        return sql.substring(i, end).toUpperCase(Locale.ROOT);
    }

    private static boolean isComment(String sql, int i) {
        return sql.startsWith("--", i) || sql.startsWith("/*", i);
    }

    /**
     * If a string ({@code '…'}, {@code E'…'} with backslash escapes), quoted identifier, comment ({@code --} to a line
     * end, nested {@code /* *}{@code /}) or dollar-quoted text starts at {@code i}, the index after it; else {@code i}.
     */
    private static int skip(String sql, int i) {
        char c = sql.charAt(i);
        if ((c == 'E' || c == 'e') && i + 1 < sql.length() && sql.charAt(i + 1) == '\''
                && (i == 0 || !Character.isLetterOrDigit(sql.charAt(i - 1)))) {
            int j = i + 2;
            while (j < sql.length()) {
                char d = sql.charAt(j);
                if (d == '\\') {
                    j += 2;
                } else if (d == '\'' && j + 1 < sql.length() && sql.charAt(j + 1) == '\'') {
                    j += 2;
                } else if (d == '\'') {
                    return j + 1;
                } else {
                    j++;
                }
            }
            return sql.length();
        }
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
        if (sql.startsWith("--", i)) {
            int j = i + 2;
            while (j < sql.length() && sql.charAt(j) != '\n' && sql.charAt(j) != '\r') {
                j++;
            }
            return j;
        }
        if (sql.startsWith("/*", i)) {
            int depth = 0;
            int j = i;
            while (j < sql.length()) {
                if (sql.startsWith("/*", j)) {
                    depth++;
                    j += 2;
                } else if (sql.startsWith("*/", j)) {
                    depth--;
                    j += 2;
                    if (depth == 0) {
                        return j;
                    }
                } else {
                    j++;
                }
            }
            return sql.length();
        }
        if (c == '$') {
            int tagEnd = sql.indexOf('$', i + 1);
            if (tagEnd > i && sql.substring(i + 1, tagEnd).matches("[A-Za-z_][A-Za-z_0-9]*|")) {
                String tag = sql.substring(i, tagEnd + 1);
                int close = sql.indexOf(tag, tagEnd + 1);
                return close < 0 ? sql.length() : close + tag.length();
            }
        }
        return i;
    }
}
