package dev.interlace.runtime.log;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Types;
import java.util.ArrayList;
import java.util.List;

/**
 * The accepted events of one group commit, held until the group's requests are all written and then inserted in
 * multi-row statements ({@link RowInserts}): a group of single-event publishes, or a request of a thousand events,
 * pays the per-statement cost once per {@value RowInserts#ROWS_PER_STATEMENT} events instead of once per event. The
 * rows go in before the group's key blocks and publish index and inside its transaction, so what commits is the same
 * as with one statement per event, row for row. Owned by the writer thread.
 */
final class EventInserts {

    private final List<Row> rows = new ArrayList<>();
    private final RowInserts<Row> inserts = new RowInserts<>("INSERT INTO events(stream_id, \"offset\", request_id,"
            + " ingested_at, schema_version, dedup_key, key_hash, payload, publish) VALUES ", 9, EventInserts::bind);

    /** Uses {@code connection} from now on: at start-up, and whenever the writer replaces it. */
    void prepare(Connection connection) {
        inserts.prepare(connection);
        rows.clear();
    }

    /** Starts a group: anything a failed group left behind is dropped. */
    void begin() {
        rows.clear();
    }

    /** Adds an accepted event's row; {@code key} and {@code publish} may be null. */
    void add(int streamId, long offset, String requestId, long ingestedAtMicros, String schemaVersion, String key,
            long keyHash, byte[] payload, String publish) {
        rows.add(new Row(streamId, offset, requestId, ingestedAtMicros, schemaVersion, key, keyHash, payload,
                publish));
    }

    /** Inserts every row added since {@link #begin()}, in the order added, inside the open transaction. */
    void insert() throws SQLException {
        try {
            inserts.insert(rows);
        } finally {
            rows.clear();
        }
    }

    private static int bind(PreparedStatement statement, int first, Row row) throws SQLException {
        int p = first;
        statement.setInt(p++, row.streamId);
        statement.setLong(p++, row.offset);
        statement.setString(p++, row.requestId);
        statement.setLong(p++, row.ingestedAtMicros);
        statement.setString(p++, row.schemaVersion);
        if (row.key == null) {
            statement.setNull(p++, Types.VARCHAR);
            statement.setNull(p++, Types.BIGINT);
        } else {
            statement.setString(p++, row.key);
            statement.setLong(p++, row.keyHash);
        }
        statement.setBytes(p++, row.payload);
        if (row.publish == null) {
            statement.setNull(p++, Types.VARCHAR);
        } else {
            statement.setString(p++, row.publish);
        }
        return p;
    }

    private record Row(int streamId, long offset, String requestId, long ingestedAtMicros, String schemaVersion,
            String key, long keyHash, byte[] payload, String publish) {}
}
