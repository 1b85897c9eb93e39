package dev.interlace.integration.http;

import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.io.TempDir;

/** A server of its own for every test, with the default flags, on a fresh data directory. */
abstract class ServerPerTest {

    @TempDir
    Path dataDirectory;

    TestServer api;

    @BeforeEach
    void startServer() {
        api = TestServer.start(dataDirectory);
    }

    @AfterEach
    void stopServer() {
        api.close();
    }
}
