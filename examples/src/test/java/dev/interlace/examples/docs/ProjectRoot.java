package dev.interlace.examples.docs;

import java.nio.file.Files;
import java.nio.file.Path;

/** Where the project's README.md and docs/ are, for tests that read the docs. */
public final class ProjectRoot {

    private ProjectRoot() {}

    /** The nearest directory above the working directory holding README.md and docs/. */
    public static Path find() {
        for (Path directory = Path.of("").toAbsolutePath(); directory != null; directory = directory.getParent()) {
            if (Files.isRegularFile(directory.resolve("README.md")) && Files.isDirectory(directory.resolve("docs"))) {
                return directory;
            }
        }
        throw new IllegalStateException("no README.md and docs/ above " + Path.of("").toAbsolutePath());
    }
}
