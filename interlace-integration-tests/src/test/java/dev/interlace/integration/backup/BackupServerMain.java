package dev.interlace.integration.backup;

import com.google.inject.AbstractModule;
import com.google.inject.Provides;
import com.google.inject.Singleton;
import dev.interlace.integration.crash.ChildJvm;
import dev.interlace.runtime.Interlace;
import dev.interlace.runtime.config.ConfigLoader;
import dev.interlace.runtime.config.InterlaceConfig;
import dev.interlace.runtime.records.SqliteSystemRecords;
import dev.interlace.runtime.records.SysRecord;
import dev.interlace.runtime.records.SystemRecords;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.util.List;
import java.util.Map;

/**
 * The server the backup crash test runs in a child JVM: {@code BackupServerMain DATA_DIR FAULT} starts Interlace on
 * an ephemeral port over {@code DATA_DIR}. With the fault point {@value #HALT_IN_BACKUP}, a backup halts the process
 * (as a kill would) once the warehouse and the log are copied and before the system records, the key file and the
 * manifest are: in the middle of the backup. It prints {@link ChildJvm#LISTENING}{@code <uri>} once ready, the
 * marker {@value #FAULT_FIRED} just before halting, and exits when its standard input closes.
 */
public final class BackupServerMain {

    static final String HALT_IN_BACKUP = "halt-in-backup";
    static final String FAULT_FIRED = "backup fault fired: ";

    private BackupServerMain() {}

    public static void main(String[] args) throws IOException {
        if (args.length != 2) {
            System.err.println("usage: BackupServerMain DATA_DIR none|" + HALT_IN_BACKUP);
            System.exit(2);
        }
        // An empty environment: INTERLACE_* variables of whoever runs the tests must not change the child.
        InterlaceConfig config = ConfigLoader.load(new String[] {"--port", "0", "--data-dir", args[0],
                "--max-pending", "10000000", "--flush-delay-ms", "1000",
                "--backup-root", java.nio.file.Path.of(args[0]).toAbsolutePath().getParent().toString()}, Map.of())
                .config();
        Interlace.Builder builder = Interlace.builder().config(config);
        if (args[1].equals(HALT_IN_BACKUP)) {
            builder.override(new HaltingRecords());
        }
        Interlace server = builder.start();
        Runtime.getRuntime().addShutdownHook(new Thread(server::close, "backup-server-shutdown"));
        System.out.println(ChildJvm.LISTENING + server.uri());
        System.out.flush();
        BufferedReader parent = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        while (parent.readLine() != null) {
            // Nothing to arm: the fault fires at the first backup.
        }
        Runtime.getRuntime().halt(3);
    }

    /** The production system records, halting the process when a backup comes to copy them. */
    private static final class HaltingRecords extends AbstractModule {
        @Provides
        @Singleton
        SystemRecords systemRecords(InterlaceConfig config, Clock clock) {
            SqliteSystemRecords records = new SqliteSystemRecords(config.dataDirectory(),
                    config.recordRetentionMicros(), clock);
            return new SystemRecords() {
                @Override
                public void record(SysRecord record) {
                    records.record(record);
                }

                @Override
                public SysRecord.Page list(SysRecord.Filter filter) {
                    return records.list(filter);
                }

                @Override
                public List<String> snapshotInto(Path directory) {
                    System.out.println(FAULT_FIRED + "warehouse and log copied into " + directory);
                    System.out.flush();
                    Runtime.getRuntime().halt(9);
                    return List.of();
                }

                @Override
                public void close() {
                    records.close();
                }
            };
        }
    }
}
