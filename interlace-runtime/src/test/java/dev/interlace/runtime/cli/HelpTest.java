package dev.interlace.runtime.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.interlace.runtime.config.ConfigLoader;
import java.util.List;
import org.junit.jupiter.api.Test;

class HelpTest {

    private static final List<String> COMMANDS = List.of("correlate", "keys", "logs", "publish", "quarantine", "run",
            "runs", "serve", "sql", "streams", "tail");

    private final CliHarness cli = new CliHarness();

    @Test
    void everyCommandAnswersHelpWithItsUsageOnStandardOutputAndExitCodeZero() {
        for (String command : COMMANDS) {
            for (String flag : List.of("--help", "-h")) {
                assertThat(cli.run(command, flag)).as("%s %s", command, flag).isZero();
                assertThat(cli.stdout()).as("%s %s", command, flag).startsWith("usage: interlace " + command + " ");
                assertThat(cli.stderr()).as("%s %s", command, flag).isEmpty();
            }
            String help = cli.stdout();
            assertThat(cli.run("help", command)).isZero();
            assertThat(cli.stdout()).as("interlace help %s", command).isEqualTo(help);
        }
    }

    @Test
    void serveHelpExplainsEverySettingWithItsEnvironmentVariableAndDefaultWithoutStartingAServer() {
        assertThat(cli.run("serve", "--port", "1", "--help")).isZero();
        String help = cli.stdout();
        assertThat(help).contains("usage: interlace serve [--port N] [--bind ADDRESS] [--data-dir DIR]")
                .contains("[--insecure-no-auth] [--allowed-hosts HOST[,HOST...]]")
                .contains("run the server")
                .doesNotContain("listening");
        for (ConfigLoader.Setting setting : ConfigLoader.SETTINGS) {
            assertThat(help).contains("  --" + setting.flag() + (setting.value().isEmpty() ? "" : " " + setting.value())
                    + "\n      " + setting.description() + " (" + setting.env());
        }
        assertThat(help).contains("(INTERLACE_MODEL_REST_RATIO; default 3)").contains("(INTERLACE_TLS_CERT)\n");
    }

    @Test
    void helpAloneOrOnItselfListsTheCommands() {
        for (String[] args : List.of(new String[] {"help"}, new String[] {"--help"}, new String[] {"help", "help"})) {
            assertThat(cli.run(args)).isZero();
            assertThat(cli.stdout()).startsWith("usage: interlace <command> [options]").contains("  serve ");
        }
    }

    @Test
    void helpForAnUnknownCommandIsAUsageError() {
        assertThat(cli.run("help", "strems")).isEqualTo(Main.USAGE);
        assertThat(cli.stderr()).contains("unknown command \"strems\"").contains("usage: interlace <command>");
    }
}
