package dev.interlace.runtime.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.interlace.runtime.auth.ApiKey;
import dev.interlace.runtime.auth.KeyFile;
import dev.interlace.runtime.auth.Scope;
import dev.interlace.runtime.config.ConfigLoader;
import dev.interlace.runtime.ops.EpochMicros;
import java.io.PrintStream;
import java.nio.file.Path;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * {@code interlace keys create|list|revoke}: the API keys of a data directory. Keys are made only here, never over
 * HTTP; the file is shared with a running server under a lock, so these work with the server running (it sees the
 * change within a second) or stopped.
 */
final class KeysCommand extends Command {

    /** Said when revoking leaves no live key; the server falls back to open mode on loopback. */
    static final String LAST_KEY = "that was the last key: a loopback server is now open without keys";

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final ConfigLoader.Setting DATA_DIR = ConfigLoader.SETTINGS.stream()
            .filter(setting -> setting.flag().equals("data-dir")).findFirst().orElseThrow();

    private final Map<String, String> environment;

    /** @param environment the process environment, for {@code INTERLACE_DATA_DIR} */
    KeysCommand(Map<String, String> environment) {
        super("keys",
                "create --name N --scope S[,S...] [--quota EVENTS_PER_S] [--quota-bytes BYTES_PER_S] [--data-dir DIR]"
                        + " [--json]"
                        + " | list [--data-dir DIR] [--json] | revoke NAME|ID [--data-dir DIR]",
                "create, list or revoke API keys");
        this.environment = environment;
    }

    /** The options after the sub-command. */
    private static final class Options {
        String name;
        final List<Scope> scopes = new ArrayList<>();
        Double quota;
        Long quotaBytes;
        String dataDirectory;
        boolean json;
        final List<String> arguments = new ArrayList<>();
    }

    @Override
    public int run(List<String> args, PrintStream out) {
        if (args.isEmpty() || args.get(0).startsWith("-")) {
            throw new UsageException("say what to do with keys: create, list or revoke");
        }
        String action = args.get(0);
        Options options = parse(args.subList(1, args.size()));
        Path dataDirectory = Path.of(options.dataDirectory != null ? options.dataDirectory
                : environment.getOrDefault(DATA_DIR.env(), DATA_DIR.defaultValue()));
        return switch (action) {
            case "create" -> create(options, dataDirectory, out);
            case "list" -> list(options, dataDirectory, out);
            case "revoke" -> revoke(options, dataDirectory, out);
            default -> throw new UsageException("unknown keys action \"" + action + "\"; choose create, list or revoke");
        };
    }

    private static Options parse(List<String> args) {
        Options options = new Options();
        for (int i = 0; i < args.size(); i++) {
            String arg = args.get(i);
            String value = null;
            String name = arg;
            int equals = arg.indexOf('=');
            if (arg.startsWith("--") && equals > 0) {
                name = arg.substring(0, equals);
                value = arg.substring(equals + 1);
            }
            switch (name) {
                case "--json" -> options.json = true;
                case "--name", "--scope", "--quota", "--quota-bytes", "--data-dir" -> {
                    if (value == null) {
                        if (i + 1 == args.size()) {
                            throw new UsageException(name + " needs a value");
                        }
                        value = args.get(++i);
                    }
                    switch (name) {
                        case "--name" -> options.name = value;
                        case "--scope" -> options.scopes.addAll(scopes(value));
                        case "--quota" -> options.quota = quota(value);
                        case "--quota-bytes" -> options.quotaBytes = quotaBytes(value);
                        default -> options.dataDirectory = value;
                    }
                }
                default -> {
                    if (arg.startsWith("-")) {
                        throw new UsageException("unknown option " + arg);
                    }
                    options.arguments.add(arg);
                }
            }
        }
        return options;
    }

    private static List<Scope> scopes(String text) {
        List<Scope> scopes = new ArrayList<>();
        for (String scope : text.split(",")) {
            try {
                scopes.add(Scope.parse(scope));
            } catch (IllegalArgumentException e) {
                throw new UsageException(e.getMessage());
            }
        }
        return scopes;
    }

    private static double quota(String text) {
        try {
            double quota = Double.parseDouble(text);
            if (quota >= 0 && !Double.isInfinite(quota)) {
                return quota;
            }
        } catch (NumberFormatException e) {
            // reported below
        }
        throw new UsageException("--quota is events per second, 0 or more (0 for none), not " + text);
    }

    private static long quotaBytes(String text) {
        try {
            long quota = Long.parseLong(text);
            if (quota >= 0) {
                return quota;
            }
        } catch (NumberFormatException e) {
            // reported below
        }
        throw new UsageException("--quota-bytes is bytes per second, a whole number 0 or more (0 for none), not "
                + text);
    }

    private int create(Options options, Path dataDirectory, PrintStream out) {
        if (!options.arguments.isEmpty()) {
            throw new UsageException("unexpected argument " + options.arguments.get(0) + " (name the key with --name)");
        }
        if (options.name == null) {
            throw new UsageException("name the key with --name");
        }
        if (options.scopes.isEmpty()) {
            throw new UsageException("give the key's scopes with --scope, e.g. --scope publish:orders,read");
        }
        try {
            KeyFile.checkName(options.name);
        } catch (IllegalArgumentException e) {
            throw new UsageException(e.getMessage());
        }
        KeyFile.CreatedKey created;
        try (KeyFile keys = KeyFile.open(dataDirectory)) {
            created = keys.create(options.name, options.scopes, options.quota == null ? 0 : options.quota,
                    options.quotaBytes == null ? 0 : options.quotaBytes);
        }
        ApiKey key = created.key();
        if (options.json) {
            ObjectNode json = describe(key, 0);
            json.put("secret", created.secret());
            json.put("note", "the secret is shown only now; it is not stored");
            out.println(TerminalText.prettyJson(json));
            return 0;
        }
        out.println("created " + key.id() + " \"" + key.name() + "\" with scopes " + scopes(key)
                + (key.quotaEventsPerSecond() > 0 ? ", quota " + quota(key) + " events/s" : "")
                + (key.quotaBytesPerSecond() > 0 ? ", quota " + key.quotaBytesPerSecond() + " bytes/s" : "") + " in "
                + KeyFile.file(dataDirectory));
        out.println();
        out.println("  " + created.secret());
        out.println();
        out.println("This secret is shown only now: it is not stored, only its hash. Give it to the client through"
                + " INTERLACE_API_KEY or a file for --api-key-file (not on a command line, where ps shows it).");
        return 0;
    }

    private int list(Options options, Path dataDirectory, PrintStream out) {
        if (!options.arguments.isEmpty() || options.name != null || !options.scopes.isEmpty()
                || options.quota != null || options.quotaBytes != null) {
            throw new UsageException("list takes only --data-dir and --json");
        }
        List<KeyFile.ListedKey> listed;
        try (KeyFile keys = KeyFile.open(dataDirectory)) {
            listed = keys.list();
        }
        long live = listed.stream().filter(key -> !key.revoked()).count();
        if (options.json) {
            ObjectNode json = JSON.createObjectNode();
            ArrayNode array = json.putArray("keys");
            listed.forEach(key -> array.add(describe(key.key(), key.revokedAtMicros())));
            json.put("count", listed.size());
            json.put("live", live);
            out.println(TerminalText.prettyJson(json));
            return 0;
        }
        List<List<String>> rows = new ArrayList<>();
        for (KeyFile.ListedKey entry : listed) {
            ApiKey key = entry.key();
            rows.add(List.of(key.id(), key.name(), scopes(key),
                    quotas(key), seconds(key.createdAtMicros()),
                    key.lastUsedAtMicros() == 0 ? "never" : seconds(key.lastUsedAtMicros()),
                    entry.revoked() ? seconds(entry.revokedAtMicros()) : ""));
        }
        Table.print(List.of("id", "name", "scopes", "quota", "created", "last used", "revoked"), rows, out);
        out.println("(" + listed.size() + " key" + (listed.size() == 1 ? "" : "s") + ", " + live + " live"
                + (live == 0 ? "; without a live key a loopback server is open: create one with interlace keys create"
                        : "") + ")");
        return 0;
    }

    private int revoke(Options options, Path dataDirectory, PrintStream out) {
        if (options.arguments.size() != 1 || options.name != null || !options.scopes.isEmpty()
                || options.quota != null || options.quotaBytes != null) {
            throw new UsageException(options.arguments.isEmpty() ? "say which key to revoke: its name or id"
                    : "revoke takes one key name or id, and --data-dir");
        }
        KeyFile.RevokedKey revoked;
        try (KeyFile keys = KeyFile.open(dataDirectory)) {
            revoked = keys.revoke(options.arguments.get(0));
        }
        out.println("revoked " + revoked.key().id() + " \"" + revoked.key().name() + "\"; a running server refuses"
                + " it within a second");
        if (revoked.noLiveKeyLeft()) {
            out.println(LAST_KEY);
        }
        return 0;
    }

    private static ObjectNode describe(ApiKey key, long revokedAtMicros) {
        ObjectNode json = JSON.createObjectNode();
        json.put("id", key.id());
        json.put("name", key.name());
        ArrayNode scopes = json.putArray("scopes");
        key.scopes().forEach(scope -> scopes.add(scope.toString()));
        json.put("quota", key.quotaEventsPerSecond());
        json.put("quota_bytes", key.quotaBytesPerSecond());
        json.put("created_at", instant(key.createdAtMicros()));
        json.put("last_used_at", key.lastUsedAtMicros() == 0 ? null : instant(key.lastUsedAtMicros()));
        json.put("revoked_at", revokedAtMicros == 0 ? null : instant(revokedAtMicros));
        return json;
    }

    private static String scopes(ApiKey key) {
        return String.join(",", key.scopes().stream().map(Scope::toString).toList());
    }

    /** The quota column of {@code keys list}: {@code 500} (events/s), {@code 1048576 B/s}, both, or {@code none}. */
    private static String quotas(ApiKey key) {
        List<String> quotas = new ArrayList<>();
        if (key.quotaEventsPerSecond() > 0) {
            quotas.add(quota(key));
        }
        if (key.quotaBytesPerSecond() > 0) {
            quotas.add(key.quotaBytesPerSecond() + " B/s");
        }
        return quotas.isEmpty() ? "none" : String.join(", ", quotas);
    }

    private static String quota(ApiKey key) {
        double quota = key.quotaEventsPerSecond();
        return quota == Math.rint(quota) ? Long.toString((long) quota) : Double.toString(quota);
    }

    private static String instant(long micros) {
        return EpochMicros.toInstant(micros).toString();
    }

    private static String seconds(long micros) {
        return EpochMicros.toInstant(micros).truncatedTo(ChronoUnit.SECONDS).toString();
    }
}
