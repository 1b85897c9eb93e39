package dev.interlace.spring.boot;

import dev.interlace.client.InterlaceClient;
import java.net.URI;
import java.nio.file.Path;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.context.annotation.Bean;
import org.springframework.core.env.Environment;

/**
 * An {@link InterlaceClient} bean when {@code interlace.client.url} is set: {@code interlace.client.api-key} is sent
 * as {@code Authorization: Bearer}, {@code interlace.client.trusted-certificates} (a PEM file) is trusted besides the
 * JVM's defaults. Independent of {@code interlace.enabled}: an application may publish to a server it does not run.
 */
@AutoConfiguration
@ConditionalOnClass(InterlaceClient.class)
@ConditionalOnProperty(name = "interlace.client.url")
public class InterlaceClientAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean
    public InterlaceClient interlaceClient(Environment environment) {
        InterlaceSettings.refuseUnknown(environment);
        Binder binder = Binder.get(environment);
        String url = binder.bind("interlace.client.url", String.class).get();
        InterlaceClient.Builder builder = InterlaceClient.builder(URI.create(url.strip()));
        binder.bind("interlace.client.api-key", String.class).ifBound(builder::apiKey);
        binder.bind("interlace.client.trusted-certificates", String.class)
                .ifBound(file -> builder.trustedCertificates(Path.of(file)));
        return builder.build();
    }
}
