package dev.interlace.integration.backup;

import dev.interlace.integration.crash.Ledger;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;

/**
 * What a restored (or restarted) data directory must hold, read from its warehouse once every event is flushed and
 * the server stopped: every key acknowledged before the backup began exactly once, and no key that was never
 * acknowledged (a request without an answer may have stored its keys, once).
 */
final class BackupOracle {

    private BackupOracle() {}

    /** Each {@code order_id} in {@code streams.orders} of the data directory's warehouse, with how often it is. */
    static Map<String, Long> storedKeys(Path dataDirectory) throws SQLException {
        Properties properties = new Properties();
        properties.setProperty("duckdb.read_only", "true");
        Map<String, Long> keys = new HashMap<>();
        try (Connection connection = DriverManager.getConnection("jdbc:duckdb:"
                + dataDirectory.resolve("warehouse.duckdb"), properties);
                Statement statement = connection.createStatement();
                ResultSet rows = statement.executeQuery("SELECT order_id, count(*) FROM streams.orders GROUP BY 1")) {
            while (rows.next()) {
                keys.put(rows.getString(1), rows.getLong(2));
            }
        }
        return keys;
    }

    /**
     * The oracle's findings, empty when the stored keys hold every key of {@code mustHold} once and nothing outside
     * {@code mayHold} (acknowledged by the end of the load, or sent without an answer), and nothing twice.
     */
    static List<String> problems(Set<String> mustHold, Set<String> mayHold, Map<String, Long> stored) {
        List<String> problems = new ArrayList<>();
        for (String key : mustHold) {
            Long count = stored.get(key);
            if (count == null) {
                problems.add("acknowledged before the backup, missing: " + key);
            }
        }
        stored.forEach((key, count) -> {
            if (count != 1) {
                problems.add(key + " is stored " + count + " times");
            }
            if (!mayHold.contains(key)) {
                problems.add("never acknowledged, yet stored: " + key);
            }
        });
        return problems;
    }

    /** Every key the load acknowledged by now, and the keys of its requests that got no answer. */
    static Set<String> acknowledgedOrInDoubt(Ledger ledger) {
        Set<String> keys = new java.util.HashSet<>(ledger.acknowledged().keySet());
        ledger.takeInDoubt().forEach(keys::addAll);
        return keys;
    }

    /** A short account of the problems for an assertion message. */
    static String summary(List<String> problems) {
        return problems.size() + " problems, e.g. " + problems.subList(0, Math.min(10, problems.size()));
    }
}
