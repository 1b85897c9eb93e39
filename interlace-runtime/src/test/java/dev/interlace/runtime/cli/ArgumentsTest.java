package dev.interlace.runtime.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class ArgumentsTest {

    private static Arguments parse(String... args) {
        return Arguments.parse(List.of(args), new ServerOptions(), Set.of("--json", "-f"), Set.of("--from", "--key"));
    }

    @Test
    void flagsOptionsInBothFormsAndPositionalsAreReadInAnyOrder() {
        Arguments arguments = parse("orders", "--from=5", "-f", "--key", "k 1", "--server", "http://h:1");
        assertThat(arguments.single("stream")).isEqualTo("orders");
        assertThat(arguments.number("--from", 0)).isEqualTo(5L);
        assertThat(arguments.value("--key")).isEqualTo("k 1");
        assertThat(arguments.flag("-f")).isTrue();
        assertThat(arguments.flag("--json")).isFalse();
        assertThat(arguments.values()).containsOnlyKeys("--from", "--key");
        assertThat(parse("-").positionals()).containsExactly("-");
    }

    @Test
    void everyMistakeIsAUsageErrorSayingWhat() {
        assertThatThrownBy(() -> parse("--yaml")).isInstanceOf(UsageException.class).hasMessage("unknown option --yaml");
        assertThatThrownBy(() -> parse("--from")).hasMessage("--from needs a value");
        assertThatThrownBy(() -> parse("--from", "1", "--from=2")).hasMessage("--from is given twice");
        assertThatThrownBy(() -> parse("--json", "--json")).hasMessage("--json is given twice");
        assertThatThrownBy(() -> parse("--json=yes")).hasMessage("--json takes no value");
        assertThatThrownBy(() -> parse("--from", "x").number("--from", 0))
                .hasMessage("--from needs a whole number of at least 0, got x");
        assertThatThrownBy(() -> parse("--from", "-1").number("--from", 0)).isInstanceOf(UsageException.class);
        assertThatThrownBy(() -> parse().single("stream")).hasMessage("no stream given");
        assertThatThrownBy(() -> parse("a", "b").single("stream")).hasMessageStartingWith("give one stream");
        assertThat(parse().optional("request id")).isNull();
    }

    @Test
    void withoutServerOptionsTheServerFlagIsUnknown() {
        assertThatThrownBy(() -> Arguments.parse(List.of("--server", "x"), null, Set.of(), Set.of()))
                .hasMessage("unknown option --server");
    }
}
