package dev.interlace.integration.crash;

import java.util.List;

/** How the crash harnesses' oracles write their findings: one section per kind of problem, with a few examples. */
public final class OracleReport {

    /** How many examples a section shows. */
    private static final int EXAMPLES = 8;

    private OracleReport() {}

    /** Appends "{@code n title}, e.g. [...]" on a line of its own unless {@code problems} is empty. */
    public static void section(StringBuilder text, String title, List<String> problems) {
        if (!problems.isEmpty()) {
            text.append("\n  ").append(problems.size()).append(' ').append(title).append(", e.g. ")
                    .append(problems.subList(0, Math.min(EXAMPLES, problems.size())));
        }
    }
}
