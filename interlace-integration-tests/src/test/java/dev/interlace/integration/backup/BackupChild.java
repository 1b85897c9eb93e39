package dev.interlace.integration.backup;

import dev.interlace.integration.crash.ChildJvm;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;

/** A {@link BackupServerMain} running in its own JVM (see {@link ChildJvm}). */
final class BackupChild extends ChildJvm {

    private BackupChild(Process process, Path stderr, String description) {
        super(process, stderr, description, BackupServerMain.FAULT_FIRED);
    }

    static BackupChild spawn(Path dataDirectory, String fault, Path stderr, String classPath, Path scratch)
            throws IOException {
        Process process = ChildJvm.launch(BackupServerMain.class, List.of(dataDirectory.toString(), fault), stderr,
                classPath, scratch);
        return new BackupChild(process, stderr, "backup server (" + fault + ") pid " + process.pid());
    }
}
