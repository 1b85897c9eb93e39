package dev.interlace.integration.backup;

import com.google.inject.AbstractModule;
import com.google.inject.Module;
import com.google.inject.Provides;
import com.google.inject.Singleton;
import dev.interlace.integration.crash.ChildJvm;
import dev.interlace.integration.crash.ChildServer;
import dev.interlace.runtime.config.InterlaceConfig;
import dev.interlace.runtime.records.SqliteSystemRecords;
import dev.interlace.runtime.records.SysRecord;
import dev.interlace.runtime.records.SystemRecords;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Clock;
import java.util.List;

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
        ChildServer.requireArguments(args, 2, "BackupServerMain DATA_DIR none|" + HALT_IN_BACKUP);
        Module[] faults = args[1].equals(HALT_IN_BACKUP) ? new Module[] {new HaltingRecords()} : new Module[0];
        ChildServer.start(List.of("--port", "0", "--data-dir", args[0], "--max-pending", "10000000",
                "--flush-delay-ms", "1000", "--backup-root", Path.of(args[0]).toAbsolutePath().getParent().toString()),
                faults);
        ChildServer.obey(command -> {
            // nothing to arm: the fault fires at the first backup
        });
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
                    ChildServer.say(FAULT_FIRED + "warehouse and log copied into " + directory);
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
