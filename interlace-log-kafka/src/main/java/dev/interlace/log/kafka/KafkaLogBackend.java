package dev.interlace.log.kafka;

import com.google.inject.AbstractModule;
import com.google.inject.Module;
import com.google.inject.Provides;
import com.google.inject.Singleton;
import com.google.inject.multibindings.OptionalBinder;
import dev.interlace.runtime.auth.ApiKeys;
import dev.interlace.runtime.auth.KeyFile;
import dev.interlace.runtime.config.InterlaceConfig;
import dev.interlace.runtime.config.LogOptions;
import dev.interlace.runtime.log.LogBackendFactory;
import dev.interlace.runtime.log.LogSettings;
import dev.interlace.runtime.log.Sequencers;
import dev.interlace.runtime.log.StreamLog;
import dev.interlace.runtime.log.Watermarks;
import java.time.Clock;

/**
 * {@code serve --log kafka}: binds {@link StreamLog} and {@link Sequencers} to a {@link KafkaStreamLog} configured
 * from the {@code --kafka-*} settings, and {@link ApiKeys} to the cluster's keys ({@link ClusterKeys}: every node's key
 * file, shared through the log's cluster). Listed in {@code META-INF/services}, so the runtime finds it by name.
 */
public final class KafkaLogBackend implements LogBackendFactory {

    @Override
    public String name() {
        return LogOptions.KAFKA;
    }

    @Override
    public Module module(InterlaceConfig config) {
        return new KafkaLogModule(KafkaLogSettings.from(config));
    }

    /** The Guice module of the Kafka log; {@code Interlace} lays it over the default log module. */
    public static final class KafkaLogModule extends AbstractModule {

        private final KafkaLogSettings kafka;

        public KafkaLogModule(KafkaLogSettings kafka) {
            this.kafka = kafka;
        }

        @Override
        protected void configure() {
            bind(StreamLog.class).to(KafkaStreamLog.class);
            OptionalBinder.newOptionalBinder(binder(), Sequencers.class).setBinding().to(KafkaStreamLog.class);
            bind(ApiKeys.class).to(ClusterKeys.class);
        }

        @Provides
        @Singleton
        ClusterKeys clusterKeys(KeyFile keyFile) {
            return new ClusterKeys(kafka, keyFile);
        }

        @Provides
        @Singleton
        KafkaStreamLog kafkaStreamLog(LogSettings settings, Watermarks watermarks, Clock clock) {
            return new KafkaStreamLog(kafka, settings, watermarks, clock);
        }
    }
}
