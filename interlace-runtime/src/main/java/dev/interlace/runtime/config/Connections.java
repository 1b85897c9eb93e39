package dev.interlace.runtime.config;

/**
 * How many connections the HTTP server keeps open: in all, and from one client address, so that one client cannot
 * hold every connection. Behind a reverse proxy every client shares the proxy's address: raise {@code perAddress} to
 * {@code max} there.
 *
 * @param max connections open at once ({@code --max-connections})
 * @param perAddress connections open at once from one client address ({@code --max-connections-per-address})
 */
public record Connections(int max, int perAddress) {

    public static final Connections DEFAULTS = new Connections(10_000, 1_000);

    public Connections {
        if (max < 1 || perAddress < 1) {
            throw new ConfigException("--max-connections and --max-connections-per-address must be at least 1, got "
                    + max + " and " + perAddress);
        }
    }
}
