package dev.interlace.spring.boot;

import dev.interlace.runtime.config.ConfigException;
import dev.interlace.runtime.config.ConfigLoader;
import dev.interlace.runtime.config.InterlaceConfig;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.core.env.Environment;

/**
 * The server's configuration from {@code interlace.*} properties: one property per {@code serve} flag
 * ({@code --data-dir} is {@code interlace.data-dir}), bound with Spring's relaxed binding, so that
 * {@code interlace.dataDir}, {@code INTERLACE_DATA_DIR} and a YAML key all reach it.
 *
 * <p>The properties become {@code serve}'s flags and go through {@link ConfigLoader}, so every setting means what
 * it means to {@code serve}, with the same defaults and the same checks; a setting not given falls back to the data
 * directory's {@code interlace.properties}, then to its default, as it does for {@code serve}. The process
 * environment is not read a second time: Spring's binding has read it already.
 */
public final class InterlaceSettings {

    /** The prefix of every Interlace property. */
    public static final String PREFIX = "interlace";

    private InterlaceSettings() {}

    /**
     * The configuration the properties describe.
     *
     * @throws InvalidInterlacePropertyException when a value is not valid, naming the property
     */
    public static InterlaceConfig resolve(Environment environment) {
        String[] flags = flags(environment);
        try {
            return ConfigLoader.load(flags, Map.of()).config();
        } catch (ConfigException e) {
            throw new InvalidInterlacePropertyException("invalid interlace.* properties (each is the serve flag of"
                    + " the same name: interlace.data-dir is --data-dir): " + e.getMessage(), e);
        }
    }

    /** The {@code serve} flags of the properties that are set, as {@code --name=value}. */
    static String[] flags(Environment environment) {
        Binder binder = Binder.get(environment);
        List<String> flags = new ArrayList<>();
        for (ConfigLoader.Setting setting : ConfigLoader.SETTINGS) {
            String name = PREFIX + "." + setting.flag();
            if (setting.value().contains(",")) {
                // A list: "a,b" or YAML's items, which binding to one string would silently miss.
                binder.bind(name, Bindable.listOf(String.class))
                        .ifBound(values -> flags.add("--" + setting.flag() + "=" + String.join(",", values)));
            } else {
                binder.bind(name, String.class).ifBound(value -> flags.add("--" + setting.flag() + "=" + value));
            }
        }
        return flags.toArray(String[]::new);
    }

    /** An {@code interlace.*} property whose value {@code serve} would refuse; the application does not start. */
    public static final class InvalidInterlacePropertyException extends IllegalStateException {
        InvalidInterlacePropertyException(String message, Throwable cause) {
            super(message, cause);
        }
    }
}
