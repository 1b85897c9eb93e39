package dev.interlace.spring.boot;

import dev.interlace.runtime.Interlace;
import dev.interlace.runtime.config.InterlaceConfig;
import dev.interlace.runtime.stream.StreamCatalog;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.Optional;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.health.contributor.CompositeHealthContributor;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;
import org.springframework.core.io.ResourceLoader;
import org.springframework.util.ClassUtils;

/**
 * Runs the Interlace server inside the application, on its own port ({@code interlace.port}) beside the
 * application's web server, with the streams and models on the application's class path; configured by
 * {@code interlace.*} properties; off with {@code interlace.enabled=false}. Every bean backs off when the application
 * defines its own.
 */
@AutoConfiguration
@ConditionalOnClass(Interlace.class)
@ConditionalOnBooleanProperty(name = "interlace.enabled", matchIfMissing = true)
public class InterlaceAutoConfiguration {

    /** The server's configuration, from {@code interlace.*} properties. */
    @Bean
    @ConditionalOnMissingBean
    public InterlaceConfig interlaceConfig(Environment environment) {
        return InterlaceSettings.resolve(environment);
    }

    /** The streams: every registry the processor generated on the application's class path. */
    @Bean
    @ConditionalOnMissingBean
    public StreamCatalog interlaceStreamCatalog(ResourceLoader resourceLoader) {
        return StreamCatalog.load(classLoader(resourceLoader));
    }

    /** The server, its meters in the application's {@link MeterRegistry} when there is one. */
    @Bean
    @ConditionalOnMissingBean
    public InterlaceServer interlaceServer(InterlaceConfig config, StreamCatalog catalog,
            ResourceLoader resourceLoader, ObjectProvider<MeterRegistry> meterRegistry) {
        return new InterlaceServer(config, catalog, classLoader(resourceLoader),
                () -> Optional.ofNullable(meterRegistry.getIfUnique()));
    }

    private static ClassLoader classLoader(ResourceLoader resourceLoader) {
        ClassLoader classLoader = resourceLoader.getClassLoader();
        return classLoader != null ? classLoader : ClassUtils.getDefaultClassLoader();
    }

    /** Interlace's health under {@code /actuator/health/interlace}, when Actuator's health is present. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(CompositeHealthContributor.class)
    static class Health {

        // The server bean is always there, the application's or this configuration's (a member class is read
        // before its enclosing class's beans, so @ConditionalOnBean would not see ours).
        @Bean
        @ConditionalOnMissingBean(name = "interlaceHealthContributor")
        public CompositeHealthContributor interlaceHealthContributor(InterlaceServer server) {
            return InterlaceHealthContributor.of(server);
        }
    }
}
