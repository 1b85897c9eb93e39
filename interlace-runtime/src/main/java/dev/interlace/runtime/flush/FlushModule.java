package dev.interlace.runtime.flush;

import com.google.inject.AbstractModule;
import dev.interlace.runtime.log.Watermarks;

/** What the log needs to know of materialisation: how far each stream is flushed. */
public final class FlushModule extends AbstractModule {

    @Override
    protected void configure() {
        bind(Watermarks.class).to(NothingMaterialised.class);
    }
}
