package dev.interlace.runtime.cli;

import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
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
        boolean json = false;
        Map<String, String> filters = new LinkedHashMap<>();
        for (int i = from; i < args.size(); i++) {
            String arg = args.get(i);
            int taken = server.accept(args, i);
            if (taken >= 0) {
                i = taken;
                continue;
            }
            if (arg.equals("--json")) {
                json = true;
                continue;
            }
            if (!arg.startsWith("--") || i + 1 == args.size()) {
                throw new UsageException(arg.startsWith("--") ? arg + " needs a value" : "unexpected argument " + arg);
            }
            String name = arg.substring(2);
            String value = args.get(++i);
            if (known.containsKey(name)) {
                filters.put(known.get(name), value);
            } else {
                throw new UsageException("unknown option " + arg + (context == null ? "" : " for " + context));
            }
        }
        return new ListOptions(server, json, filters);
    }

    /** {@code path} with the filters as its query string. */
    String path(String path) {
        StringBuilder url = new StringBuilder(path);
        filters.forEach((parameter, value) -> url.append(url.indexOf("?") < 0 ? '?' : '&').append(parameter)
                .append('=').append(URLEncoder.encode(value, StandardCharsets.UTF_8)));
        return url.toString();
    }
}
