package dev.interlace.runtime.cli;

import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.Map;

/**
 * The options of a command that lists something through the server's filters ({@code runs}, {@code logs}):
 * {@code --<filter> value} for each known filter, the {@link ServerOptions} and {@code --json}.
 *
 * @param filters query parameter to value, in the order given
 */
record ListOptions(ServerOptions server, boolean json, Map<String, String> filters) {

    /**
     * Parses {@code args} from index {@code from}.
     *
     * @param known each filter's option name (without {@code --}) to its query parameter
     * @param context what the command is called in messages, e.g. {@code logs api}; null to leave it out
     * @throws UsageException for an unknown option, a missing value or a stray argument
     */
    static ListOptions parse(List<String> args, int from, Map<String, String> known, String context) {
        ServerOptions server = new ServerOptions();
        Set<String> options = known.keySet().stream().map(name -> "--" + name).collect(Collectors.toSet());
        Arguments arguments;
        try {
            arguments = Arguments.parse(args.subList(from, args.size()), server, Set.of("--json"), options);
        } catch (UsageException e) {
            throw new UsageException(e.getMessage() + (context == null ? "" : " for " + context));
        }
        if (!arguments.positionals().isEmpty()) {
            throw new UsageException("unexpected argument " + arguments.positionals().get(0));
        }
        Map<String, String> filters = new LinkedHashMap<>();
        arguments.values().forEach((option, value) -> filters.put(known.get(option.substring(2)), value));
        return new ListOptions(server, arguments.flag("--json"), filters);
    }

    /** {@code path} with the filters as its query string. */
    String path(String path) {
        StringBuilder url = new StringBuilder(path);
        filters.forEach((parameter, value) -> url.append(url.indexOf("?") < 0 ? '?' : '&').append(parameter)
                .append('=').append(URLEncoder.encode(value, StandardCharsets.UTF_8)));
        return url.toString();
    }
}
