package dev.interlace.runtime.log;

import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

/**
 * The log database's tables: created when missing, with the columns later versions added to a log written by an
 * earlier one. Runs on the writer connection when the log opens.
 */
final class LogSchema {

    private LogSchema() {}

    static void create(Statement statement) throws SQLException {
        statement.execute("CREATE TABLE IF NOT EXISTS streams ("
                + " id INTEGER PRIMARY KEY,"
                + " name TEXT NOT NULL UNIQUE,"
                + " trimmed_through INTEGER NOT NULL DEFAULT 0,"
                + " quarantine_trimmed_through INTEGER NOT NULL DEFAULT 0,"
                + " created_at INTEGER NOT NULL)");
        statement.execute("CREATE TABLE IF NOT EXISTS schemas ("
                + " stream_id INTEGER NOT NULL REFERENCES streams(id),"
                + " version TEXT NOT NULL,"
                + " columns TEXT NOT NULL,"
                + " registered_at INTEGER NOT NULL,"
                + " PRIMARY KEY (stream_id, version)) WITHOUT ROWID");
        // No secondary index on purpose: rows are appended in offset order, and keys are looked up through the
        // deduplication index (recent keys in memory, older ones in segment files with filters; see DedupIndex).
        statement.execute("CREATE TABLE IF NOT EXISTS events ("
                + " stream_id INTEGER NOT NULL,"
                + " \"offset\" INTEGER NOT NULL,"
                + " request_id TEXT NOT NULL,"
                + " ingested_at INTEGER NOT NULL,"
                + " schema_version TEXT NOT NULL,"
                + " dedup_key TEXT,"
                + " key_hash INTEGER,"
                + " payload BLOB NOT NULL,"
                + " publish TEXT,"
                + " PRIMARY KEY (stream_id, \"offset\")) WITHOUT ROWID");
        // The publish record of a request with accepted events rides on its last event row (see writePublish).
        boolean publishesOnEventsAdded = addMissingColumns(statement, "events", "publish TEXT");
        statement.execute("CREATE TABLE IF NOT EXISTS quarantine ("
                + " stream_id INTEGER NOT NULL,"
                + " seq INTEGER NOT NULL,"
                + " request_id TEXT NOT NULL,"
                + " ingested_at INTEGER NOT NULL,"
                + " schema_version TEXT NOT NULL,"
                + " payload BLOB NOT NULL,"
                + " errors TEXT NOT NULL,"
                + " PRIMARY KEY (stream_id, seq)) WITHOUT ROWID");
        // Added with quarantine replay: where an entry's event went (null while it is still quarantined).
        addMissingColumns(statement, "quarantine", "replayed_offset INTEGER", "replayed_by TEXT",
                "replayed_at INTEGER");
        // Added with partitioned streams: the partition whose offset replayed_offset is (null: partition 0).
        addMissingColumns(statement, "quarantine", "replayed_partition INTEGER");
        // Finds what one replay request moved (GET /correlate); holds only replayed entries.
        statement.execute("CREATE INDEX IF NOT EXISTS quarantine_replayed_by ON quarantine(stream_id, replayed_by)"
                + " WHERE replayed_by IS NOT NULL");
        statement.execute("CREATE TABLE IF NOT EXISTS publishes ("
                + " id INTEGER PRIMARY KEY,"
                + " request_id TEXT NOT NULL,"
                + " stream_id INTEGER NOT NULL,"
                + " accepted INTEGER NOT NULL,"
                + " deduplicated INTEGER NOT NULL,"
                + " quarantined INTEGER NOT NULL,"
                + " first_offset INTEGER,"
                + " last_offset INTEGER,"
                + " received_at INTEGER NOT NULL,"
                + " committed_at INTEGER NOT NULL)");
        // Looking publish records up by request id goes through publish_ids, filled in batches (see indexPublishes):
        // an index on publishes itself, maintained row by row on the writer thread, cost 7 % of publish throughput.
        statement.execute("DROP INDEX IF EXISTS publishes_by_request");
        statement.execute("CREATE TABLE IF NOT EXISTS publish_ids ("
                + " request_id TEXT NOT NULL,"
                + " publish_id INTEGER NOT NULL,"
                + " PRIMARY KEY (request_id, publish_id)) WITHOUT ROWID");
        statement.execute("CREATE TABLE IF NOT EXISTS publish_index ("
                + " id INTEGER PRIMARY KEY CHECK (id = 1),"
                + " indexed_through INTEGER NOT NULL)");
        statement.execute("INSERT OR IGNORE INTO publish_index VALUES (1, 0)");
        // How far each stream's events have had their publish records copied into publishes.
        statement.execute("CREATE TABLE IF NOT EXISTS publish_copy ("
                + " stream_id INTEGER PRIMARY KEY,"
                + " through_offset INTEGER NOT NULL)");
        // Streams of a log written before publish records rode on event rows: nothing to copy below their head. Only
        // then: on a later open, a stream without a row has records on its event rows that were never copied (a
        // server stopped before its first copy), and copying starts from 0 for it. The head is read from the newest
        // event backwards (a max() would scan every event of every stream).
        if (publishesOnEventsAdded) {
            statement.execute("INSERT OR IGNORE INTO publish_copy SELECT s.id,"
                    + " coalesce((SELECT e.\"offset\" FROM events e WHERE e.stream_id = s.id"
                    + " ORDER BY e.\"offset\" DESC LIMIT 1), 0) FROM streams s");
        }
        // Added for GET /correlate; logs created before get them (null for old records).
        addMissingColumns(statement, "publishes", "duplicate_offsets TEXT", "first_seq INTEGER", "last_seq INTEGER");
        // Added with API keys: which key sent the request (null without one, and for older records).
        addMissingColumns(statement, "publishes", "key_id TEXT", "key_name TEXT");
        // Added with W3C trace context: the trace id the request came with (null for older records), and the index
        // GET /correlate?trace_id= reads, filled with publish_ids.
        addMissingColumns(statement, "publishes", "trace_id TEXT");
        statement.execute("CREATE TABLE IF NOT EXISTS publish_trace_ids ("
                + " trace_id TEXT NOT NULL,"
                + " publish_id INTEGER NOT NULL,"
                + " PRIMARY KEY (trace_id, publish_id)) WITHOUT ROWID");
        // Consumer groups (leases with fencing tokens); written by the consumer API.
        statement.execute("CREATE TABLE IF NOT EXISTS consumer_groups ("
                + " stream_id INTEGER NOT NULL,"
                + " group_name TEXT NOT NULL,"
                + " committed_offset INTEGER NOT NULL DEFAULT 0,"
                + " fencing_token INTEGER NOT NULL DEFAULT 0,"
                + " lease_owner TEXT,"
                + " lease_expires_at INTEGER,"
                + " updated_at INTEGER NOT NULL,"
                + " PRIMARY KEY (stream_id, group_name)) WITHOUT ROWID");
        // Added with group ownership: the current lease's secret and the keys the group belongs to (space-separated);
        // null for groups written before, which match no token and belong to the first key that leases them.
        addMissingColumns(statement, "consumer_groups", "lease_secret TEXT", "owner_keys TEXT");
        // Added when leases became their key's: the id of the key the current lease was granted to; null without a
        // key and for leases granted before, which no key renews (they are leased anew once they expire).
        addMissingColumns(statement, "consumer_groups", "lease_key TEXT");
        // Each group's new deduplication keys (offset and hash, 16 bytes each), read at start-up (see KeyBlocks).
        statement.execute("CREATE TABLE IF NOT EXISTS key_blocks ("
                + " stream_id INTEGER NOT NULL,"
                + " last_offset INTEGER NOT NULL,"
                + " last_ingested_at INTEGER NOT NULL,"
                + " keys BLOB NOT NULL,"
                + " PRIMARY KEY (stream_id, last_offset)) WITHOUT ROWID");
        statement.execute("CREATE TABLE IF NOT EXISTS key_blocks_from ("
                + " stream_id INTEGER PRIMARY KEY,"
                + " first_offset INTEGER NOT NULL)");
        // Written and emptied again while writes fail, to notice when the disk has room again (see probe).
        statement.execute("CREATE TABLE IF NOT EXISTS write_probe (id INTEGER PRIMARY KEY, filler BLOB)");
    }

    /**
     * Adds each {@code "<name> <type>"} column that {@code table} lacks (a log written by an earlier version).
     *
     * @return whether any column was added
     */
    private static boolean addMissingColumns(Statement statement, String table, String... columns)
            throws SQLException {
        java.util.Set<String> existing = new java.util.HashSet<>();
        try (ResultSet rows = statement.executeQuery("PRAGMA table_info(" + table + ")")) {
            while (rows.next()) {
                existing.add(rows.getString("name"));
            }
        }
        boolean added = false;
        for (String column : columns) {
            if (!existing.contains(column.substring(0, column.indexOf(' ')))) {
                statement.execute("ALTER TABLE " + table + " ADD COLUMN " + column);
                added = true;
            }
        }
        return added;
    }
}
