package dev.interlace.runtime.cli;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.PrintStream;
import java.util.List;

/**
 * Prints rows as an aligned text table, the way every human-facing CLI listing looks. Every header and cell goes
 * through {@link TerminalText#escape} here, whichever command built it, so that no table prints a control character
 * a client stored (and so that the widths count what the terminal shows).
 */
final class Table {

    private static final int MAX_CELL = 60;

    private Table() {}

    static void print(List<String> header, List<List<String>> rows, PrintStream out) {
        header = escaped(header);
        rows = rows.stream().map(Table::escaped).toList();
        int[] widths = new int[header.size()];
        for (int i = 0; i < header.size(); i++) {
            widths[i] = header.get(i).length();
            for (List<String> row : rows) {
                widths[i] = Math.max(widths[i], row.get(i).length());
            }
        }
        out.println(line(header, widths));
        StringBuilder rule = new StringBuilder();
        for (int i = 0; i < widths.length; i++) {
            rule.append(i == 0 ? "" : "-+-").append("-".repeat(widths[i]));
        }
        out.println(rule);
        for (List<String> row : rows) {
            out.println(line(row, widths));
        }
    }

    /** A JSON value as a cell: {@code NULL} for null, strings unquoted, long text cut. */
    static String cell(JsonNode value) {
        String text = fullCell(value);
        return text.length() > MAX_CELL ? text.substring(0, MAX_CELL - 1) + "…" : text;
    }

    /**
     * A JSON value as a cell, not cut: for free text in a table's last column (a message, an error), where its length
     * costs no other column its alignment and the end of the text is often what matters.
     */
    static String fullCell(JsonNode value) {
        String text = value == null || value.isNull() ? "NULL" : value.isTextual() ? value.asText() : value.toString();
        return text.replace('\n', ' ');
    }

    private static List<String> escaped(List<String> cells) {
        return cells.stream().map(TerminalText::escape).toList();
    }

    private static String line(List<String> cells, int[] widths) {
        StringBuilder line = new StringBuilder();
        for (int i = 0; i < cells.size(); i++) {
            line.append(i == 0 ? "" : " | ").append(String.format("%-" + Math.max(1, widths[i]) + "s", cells.get(i)));
        }
        return line.toString().stripTrailing();
    }
}
