package dev.interlace.runtime.backup;

import dev.interlace.runtime.auth.KeyFile;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Comparator;

/**
 * Lays a backup out as a data directory, offline: {@code serve --data-dir} on it then starts where the backup was
 * taken. Every file is checked against the manifest's SHA-256 as it is copied; the copy is made in a sibling
 * directory and renamed into place only once every file is there and checked, so a refused or failed restore leaves
 * no data directory behind, and a server can never start on half a restore.
 */
public final class Restore {

    private Restore() {}

    /**
     * Restores the backup in {@code backup} into {@code dataDirectory}, which must not exist or be empty.
     *
     * @return the backup's manifest
     * @throws BackupException {@link BackupException.Reason#CORRUPT} naming the file that is missing or differs from
     *     its checksum, {@link BackupException.Reason#INVALID_TARGET} for a data directory that is not empty, or
     *     {@link BackupException.Reason#FAILED} when the copy cannot be written
     */
    public static BackupManifest restore(Path backup, Path dataDirectory) throws BackupException {
        Path target = dataDirectory.toAbsolutePath().normalize();
        try {
            if (!BackupFiles.absentOrEmpty(target)) {
                throw new BackupException(BackupException.Reason.INVALID_TARGET, target + " is not empty; restore"
                        + " into a new or empty directory (a restore never overwrites a data directory)");
            }
        } catch (IOException e) {
            throw new BackupException(BackupException.Reason.FAILED, "cannot read " + target + ": " + e.getMessage(),
                    e);
        }
        BackupManifest manifest = BackupManifest.readFrom(backup);
        Path staging = target.resolveSibling(target.getFileName() + ".restoring");
        try {
            deleteTree(staging);
            Files.createDirectories(staging);
            for (BackupManifest.FileEntry file : manifest.files()) {
                copyChecked(backup, file, staging);
            }
            if (Files.exists(staging.resolve(KeyFile.FILE_NAME))) {
                BackupFiles.ownerOnly(staging.resolve(KeyFile.FILE_NAME));
            }
            BackupFiles.forceDirectory(staging);
            Files.deleteIfExists(target); // empty, checked above
            Files.move(staging, target, StandardCopyOption.ATOMIC_MOVE);
            BackupFiles.forceDirectory(target.getParent());
            return manifest;
        } catch (BackupException e) {
            deleteQuietly(staging);
            throw e;
        } catch (IOException e) {
            deleteQuietly(staging);
            throw new BackupException(BackupException.Reason.FAILED, "the restore into " + target + " failed: "
                    + e.getMessage() + "; nothing was written there", e);
        }
    }

    /** Copies one file of the backup, refusing it when it is missing or its bytes differ from the manifest. */
    private static void copyChecked(Path backup, BackupManifest.FileEntry file, Path staging)
            throws IOException, BackupException {
        Path source = backup.resolve(file.name());
        String sha256;
        try {
            sha256 = BackupFiles.copy(source, staging.resolve(file.name()));
        } catch (NoSuchFileException e) {
            throw new BackupException(BackupException.Reason.CORRUPT, "the backup in " + backup + " is incomplete: "
                    + file.name() + ", listed in its manifest, is missing; nothing was restored");
        }
        if (!sha256.equals(file.sha256())) {
            throw new BackupException(BackupException.Reason.CORRUPT, "the backup in " + backup + " is damaged: "
                    + file.name() + " has SHA-256 " + sha256 + ", its manifest says " + file.sha256()
                    + " (" + file.bytes() + " bytes; the file has " + Files.size(source) + "); nothing was restored");
        }
    }

    private static void deleteQuietly(Path directory) {
        try {
            deleteTree(directory);
        } catch (IOException e) {
            // Left for the operator; the message of the failure names the target.
        }
    }

    private static void deleteTree(Path directory) throws IOException {
        if (!Files.exists(directory)) {
            return;
        }
        try (var paths = Files.walk(directory)) {
            for (Path path : paths.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(path);
            }
        }
    }
}
