package dev.interlace.spring.boot;

import dev.interlace.runtime.config.ConfigException;
import dev.interlace.runtime.config.ConfigLoader;
import dev.interlace.runtime.config.InterlaceConfig;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.source.ConfigurationPropertyName;
import org.springframework.boot.context.properties.source.ConfigurationPropertySource;
import org.springframework.boot.context.properties.source.ConfigurationPropertySources;
import org.springframework.boot.context.properties.source.IterableConfigurationPropertySource;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.core.env.Environment;
import org.springframework.core.env.PropertySource;
import org.springframework.core.env.SystemEnvironmentPropertySource;

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
        refuseUnknown(environment);
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

    /**
     * Refuses an {@code interlace.*} property that names no setting (a typo, e.g. {@code interlace.max-pendng}), as
     * {@code serve} refuses an unknown flag, instead of leaving the setting at its default. Environment variables
     * are not checked: {@code serve} ignores the {@code INTERLACE_*} variables it does not know, and so does this.
     *
     * @throws InvalidInterlacePropertyException naming the property and the known ones
     */
    static void refuseUnknown(Environment environment) {
        List<String> known = new ArrayList<>(List.of("enabled", "client.url", "client.api-key",
                "client.trusted-certificates"));
        ConfigLoader.SETTINGS.forEach(setting -> known.add(setting.flag()));
        java.util.Set<String> uniform = new java.util.HashSet<>();
        known.forEach(name -> uniform.add(uniform(name)));
        ConfigurationPropertyName prefix = ConfigurationPropertyName.of(PREFIX);
        for (ConfigurationPropertySource source : ConfigurationPropertySources.get(environment)) {
            if (source.getUnderlyingSource() instanceof SystemEnvironmentPropertySource
                    || !(source instanceof IterableConfigurationPropertySource iterable)) {
                continue;
            }
            iterable.stream().filter(prefix::isAncestorOf).forEach(name -> {
                String first = name.getElement(1, ConfigurationPropertyName.Form.UNIFORM);
                String key = first.equals("client") && name.getNumberOfElements() > 2
                        ? "client." + name.getElement(2, ConfigurationPropertyName.Form.UNIFORM) : first;
                if (!uniform.contains(uniform(key))) {
                    Object origin = source.getUnderlyingSource() instanceof PropertySource<?> propertySource
                            ? propertySource.getName() : source.getUnderlyingSource();
                    throw new InvalidInterlacePropertyException("unknown property " + name + " (in " + origin
                            + "); known properties: interlace."
                            + String.join(", interlace.", known), null);
                }
            });
        }
    }

    private static String uniform(String name) {
        return name.replace("-", "").toLowerCase(java.util.Locale.ROOT);
    }

    /** An {@code interlace.*} property whose value {@code serve} would refuse; the application does not start. */
    public static final class InvalidInterlacePropertyException extends IllegalStateException {
        InvalidInterlacePropertyException(String message, Throwable cause) {
            super(message, cause);
        }
    }
}
