package dev.interlace.examples.docs;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The shell examples of one Markdown file that talk to a server, in the order they appear, with the markers that
 * say how each is checked:
 *
 * <ul>
 *   <li>A fenced block marked {@code sh}, {@code bash} or {@code shell} is commands (a {@code #} line is a comment,
 *       a trailing {@code \} continues the command); in any other fenced block only lines starting with {@code $ }
 *       are commands, the rest is output.
 *   <li>A command talks to a server when it is {@code curl} with a URL on {@code localhost:8000} or
 *       {@code 127.0.0.1:8000}, or an {@code interlace} (or {@code java -jar examples/target/interlace-examples.jar})
 *       command other than the local ones ({@code serve}, {@code keys}, {@code streams}, {@code restore}) without a
 *       {@code --server} elsewhere.
 *   <li>{@code <!-- expect: 404 -->} or {@code <!-- expect: 4xx -->} before a block: its commands are meant to fail
 *       with that status (a CLI command: to exit non-zero).
 *   <li>{@code <!-- docs-check: skip REASON -->} before a block: its commands are not run.
 *   <li>{@code <!-- docs-check: setup} … {@code -->}: shell lines a reader does not see, run at that point (for data
 *       the examples below need, including requests meant to be refused): a {@code curl} there must get an answer
 *       (any status), anything else must exit 0.
 * </ul>
 */
record DocExamples(Path file, List<Example> examples) {

    /** How a command's answer is judged. */
    enum Kind { SUCCEEDS, FAILS, SETUP }

    /**
     * One command.
     *
     * @param line the line it starts on (1-based)
     * @param expectedStatus for {@link Kind#FAILS}: a status such as {@code 404} or a class such as {@code 4xx}
     */
    record Example(int line, String command, Kind kind, String expectedStatus) {

        /** Whether {@code status} is what the doc shows: 2xx, or the marked status. */
        boolean accepts(int status) {
            if (kind != Kind.FAILS) {
                return status >= 200 && status < 300;
            }
            String expected = expectedStatus.toLowerCase(Locale.ROOT);
            return expected.endsWith("xx") ? Integer.toString(status).charAt(0) == expected.charAt(0)
                    : Integer.toString(status).equals(expected);
        }
    }

    static final String JAR = "java -jar examples/target/interlace-examples.jar";
    /** CLI commands that work on this machine only (the data directory, the class path), not on a server. */
    private static final List<String> LOCAL_COMMANDS = List.of("serve", "keys", "streams", "restore", "help",
            "--help");

    private static final Pattern FENCE = Pattern.compile("^\\s*```\\s*([A-Za-z]*)");
    private static final Pattern EXPECT = Pattern.compile("<!--\\s*expect:\\s*([1-5](?:\\d\\d|xx))\\s*-->");
    private static final Pattern SKIP = Pattern.compile("<!--\\s*docs-check:\\s*skip\\b.*-->");
    private static final Pattern SETUP = Pattern.compile("^\\s*<!--\\s*docs-check:\\s*setup\\s*$");
    private static final Pattern LOCAL_SERVER = Pattern.compile("(?:localhost|127\\.0\\.0\\.1):8000");

    static DocExamples read(Path file) throws IOException {
        List<String> lines = Files.readAllLines(file);
        List<Example> examples = new ArrayList<>();
        String expect = null;
        boolean skip = false;
        for (int i = 0; i < lines.size(); i++) {
            String line = lines.get(i);
            Matcher expectMarker = EXPECT.matcher(line);
            if (expectMarker.find()) {
                expect = expectMarker.group(1);
                continue;
            }
            if (SKIP.matcher(line).find()) {
                skip = true;
                continue;
            }
            if (SETUP.matcher(line).find()) {
                int start = i + 1;
                StringBuilder command = new StringBuilder();
                for (i++; i < lines.size() && !lines.get(i).strip().equals("-->"); i++) {
                    if (continues(command, lines.get(i))) {
                        continue;
                    }
                    if (!command.isEmpty()) {
                        examples.add(new Example(start + 1, rewrite(command.toString()), Kind.SETUP, null));
                    }
                    command.setLength(0);
                    start = i + 1;
                }
                continue;
            }
            Matcher fence = FENCE.matcher(line);
            if (!fence.find()) {
                continue;
            }
            String language = fence.group(1).toLowerCase(Locale.ROOT);
            boolean shell = language.equals("sh") || language.equals("bash") || language.equals("shell");
            StringBuilder command = new StringBuilder();
            int start = 0;
            for (i++; i < lines.size() && !FENCE.matcher(lines.get(i)).find(); i++) {
                String text = lines.get(i);
                if (command.isEmpty()) {
                    String stripped = text.strip();
                    if (shell ? stripped.isEmpty() || stripped.startsWith("#") : !stripped.startsWith("$ ")) {
                        continue;
                    }
                    text = shell ? stripped : stripped.substring(2);
                    start = i + 1;
                }
                if (continues(command, text)) {
                    continue;
                }
                String whole = rewrite(command.toString());
                command.setLength(0);
                if (!skip && talksToTheServer(whole)) {
                    examples.add(new Example(start, whole, expect == null ? Kind.SUCCEEDS : Kind.FAILS, expect));
                }
            }
            expect = null;
            skip = false;
        }
        return new DocExamples(file, examples);
    }

    /** Appends a line to the command; true when it ends with a continuation ({@code \}). */
    private static boolean continues(StringBuilder command, String line) {
        String text = line.strip();
        boolean more = text.endsWith("\\");
        command.append(command.isEmpty() ? "" : " ").append(more ? text.substring(0, text.length() - 1).strip() : text);
        return more;
    }

    private static String rewrite(String command) {
        return command.replace(JAR, "interlace");
    }

    static boolean talksToTheServer(String command) {
        if (command.startsWith("curl ")) {
            return LOCAL_SERVER.matcher(command).find();
        }
        if (!command.startsWith("interlace ")) {
            return false;
        }
        String[] words = command.split("\\s+");
        if (words.length < 2 || LOCAL_COMMANDS.contains(words[1])) {
            return false;
        }
        int server = command.indexOf("--server");
        return server < 0 || LOCAL_SERVER.matcher(command.substring(server)).find();
    }

    /**
     * Where the shell would end the command at an {@code &} that is outside quotes (e.g. an unquoted URL with two
     * parameters: the rest of the URL would be lost), or -1.
     */
    static int unquotedAmpersand(String command) {
        char quote = 0;
        for (int i = 0; i < command.length(); i++) {
            char c = command.charAt(i);
            if (quote != 0) {
                if (c == quote) {
                    quote = 0;
                } else if (c == '\\' && quote == '"') {
                    i++;
                }
            } else if (c == '\'' || c == '"') {
                quote = c;
            } else if (c == '\\') {
                i++;
            } else if (c == '#' && (i == 0 || Character.isWhitespace(command.charAt(i - 1)))) {
                return -1; // a comment
            } else if (c == '&') {
                if (i + 1 < command.length() && command.charAt(i + 1) == '&') {
                    i++;
                } else {
                    return i;
                }
            }
        }
        return -1;
    }
}
