package dev.interlace.runtime.auth;

import com.google.inject.AbstractModule;
import com.google.inject.Provides;
import com.google.inject.Singleton;
import dev.interlace.runtime.config.InterlaceConfig;

/** API keys from the data directory's key file, and per-key publish quotas. */
public final class AuthModule extends AbstractModule {

    @Override
    protected void configure() {
        bind(ApiKeys.class).to(KeyFile.class);
        bind(Quotas.class).in(Singleton.class);
    }

    @Provides
    @Singleton
    KeyFile keyFile(InterlaceConfig config) {
        return KeyFile.open(config.dataDirectory());
    }
}
