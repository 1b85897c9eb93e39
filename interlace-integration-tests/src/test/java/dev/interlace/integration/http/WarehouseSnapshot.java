package dev.interlace.integration.http;

import dev.interlace.runtime.warehouse.Warehouse;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Everything about a warehouse that a query must not change, read through a connection of its own: every database
 * attached, every schema, view, sequence, index and user function, every table's row count and a hash of all its
 * rows, every row of {@code streams._watermarks}, and the settings that bound or protect it. Two snapshots are equal
 * exactly when none of that changed.
 */
record WarehouseSnapshot(Map<String, String> facts) {

    /** Settings that a hostile query would most like to change. */
    private static final List<String> SETTINGS = List.of("memory_limit", "threads", "enable_external_access",
            "lock_configuration", "allow_community_extensions", "autoload_known_extensions",
            "autoinstall_known_extensions", "allowed_directories", "allowed_paths", "temp_directory",
            "max_temp_directory_size", "access_mode", "checkpoint_threshold");

    static WarehouseSnapshot of(Warehouse warehouse) {
        Map<String, String> facts = new TreeMap<>();
        try (Connection c = warehouse.connect(); Statement statement = c.createStatement()) {
            facts.put("databases", column(statement, "SELECT database_name || ':' || coalesce(path, '') || ':'"
                    + " || readonly FROM duckdb_databases() ORDER BY 1"));
            facts.put("schemas", column(statement, "SELECT database_name || '.' || schema_name FROM duckdb_schemas()"
                    + " ORDER BY 1"));
            facts.put("views", objects(statement, "view_name || ' ' || sql", "duckdb_views() WHERE NOT internal"));
            facts.put("sequences", objects(statement, "sequence_name || ' ' || last_value", "duckdb_sequences()"));
            facts.put("indexes", objects(statement, "index_name", "duckdb_indexes()"));
            facts.put("functions", objects(statement, "function_name", "duckdb_functions() WHERE NOT internal"));
            List<String[]> tables = new ArrayList<>();
            try (ResultSet rows = statement.executeQuery("SELECT database_name, schema_name, table_name"
                    + " FROM duckdb_tables() ORDER BY ALL")) {
                while (rows.next()) {
                    tables.add(new String[] {rows.getString(1), rows.getString(2), rows.getString(3)});
                }
            }
            for (String[] table : tables) {
                String name = quote(table[0]) + "." + quote(table[1]) + "." + quote(table[2]);
                facts.put("table " + name, column(statement, "SELECT count(*) || ' rows, hash '"
                        + " || coalesce(sum(hash(t)), 0) FROM " + name + " AS t"));
            }
            facts.put("watermarks", column(statement, "SELECT stream || ' ' || watermark || ' ' || fencing_token"
                    + " || ' ' || updated_at FROM streams._watermarks ORDER BY stream"));
            try (PreparedStatement settings = c.prepareStatement(
                    "SELECT name || ' = ' || value FROM duckdb_settings() WHERE name = ?")) {
                for (String setting : SETTINGS) {
                    settings.setString(1, setting);
                    try (ResultSet row = settings.executeQuery()) {
                        facts.put("setting " + setting, row.next() ? row.getString(1) : "(none)");
                    }
                }
            }
        } catch (SQLException e) {
            throw new IllegalStateException("cannot read the warehouse: " + e.getMessage(), e);
        }
        return new WarehouseSnapshot(facts);
    }

    private static String column(Statement statement, String sql) throws SQLException {
        StringBuilder values = new StringBuilder();
        try (ResultSet rows = statement.executeQuery(sql)) {
            while (rows.next()) {
                values.append(rows.getString(1)).append('\n');
            }
        }
        return values.toString();
    }

    /**
     * One line per object a DuckDB catalog function lists ({@code from}, with its filter): the object's qualified name
     * followed by {@code what} (an expression starting with the object's name column), in order.
     */
    private static String objects(Statement statement, String what, String from) throws SQLException {
        return column(statement, "SELECT database_name || '.' || schema_name || '.' || " + what + " FROM " + from
                + " ORDER BY 1");
    }

    private static String quote(String identifier) {
        return "\"" + identifier.replace("\"", "\"\"") + "\"";
    }
}
