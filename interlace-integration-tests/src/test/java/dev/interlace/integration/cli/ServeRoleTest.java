package dev.interlace.integration.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.interlace.runtime.cli.CliHarness;
import dev.interlace.runtime.cli.Main;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code serve --role}: only on the Kafka log; a usage error, naming the fix, everywhere else. */
class ServeRoleTest {

    @TempDir
    Path dataDirectory;

    @Test
    void aRoleOtherThanAllOnTheSqliteLogExits2AndStartsNothing() {
        for (String role : new String[] {"ingest", "warehouse"}) {
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            ByteArrayOutputStream err = new ByteArrayOutputStream();
            int code = CliHarness.main(new PrintStream(out, true, StandardCharsets.UTF_8),
                    new PrintStream(err, true, StandardCharsets.UTF_8)).run(new String[] {"serve", "--port", "0",
                            "--data-dir", dataDirectory.toString(), "--role", role});
            assertThat(code).isEqualTo(Main.USAGE);
            assertThat(err.toString(StandardCharsets.UTF_8)).contains("--role " + role + " needs --log kafka");
            assertThat(out.toString(StandardCharsets.UTF_8)).doesNotContain("listening");
            assertThat(dataDirectory.resolve("log.sqlite")).doesNotExist();
        }
    }
}
