package dev.interlace.runtime.config;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** docs/configuration.md has a row for every setting, with its environment variable and default as the code has them. */
class ConfigurationDocTest {

    private static final Path DOC = Path.of("..", "docs", "configuration.md");

    @Test
    void everySettingHasARowWithItsEnvironmentVariableAndDefault() throws IOException {
        String doc = Files.readString(DOC);
        for (ConfigLoader.Setting setting : ConfigLoader.SETTINGS) {
            Matcher row = Pattern.compile("(?m)^\\| `--" + Pattern.quote(setting.flag()) + "` \\| `"
                    + Pattern.quote(setting.env()) + "` \\| ([^|]*) \\|").matcher(doc);
            assertThat(row.find()).as("a row for --%s with %s in %s", setting.flag(), setting.env(), DOC).isTrue();
            // A setting without a default is described in words there ("(none)", what it falls back to).
            if (!setting.defaultValue().isEmpty()) {
                assertThat(row.group(1).strip()).as("the default of --%s", setting.flag())
                        .isEqualTo("`" + setting.defaultValue() + "`");
            }
        }
    }

    @Test
    void theDocumentListsNoSettingTheCodeDoesNotHave() throws IOException {
        List<String> flags = ConfigLoader.SETTINGS.stream().map(ConfigLoader.Setting::flag).toList();
        Matcher row = Pattern.compile("(?m)^\\| `--([a-z-]+)` \\| `INTERLACE_").matcher(Files.readString(DOC));
        int rows = 0;
        while (row.find()) {
            assertThat(flags).as("--%s in %s", row.group(1), DOC).contains(row.group(1));
            rows++;
        }
        assertThat(rows).isEqualTo(flags.size());
    }
}
