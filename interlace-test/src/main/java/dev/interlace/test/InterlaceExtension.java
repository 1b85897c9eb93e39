package dev.interlace.test;

import com.google.inject.Module;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.reflect.Executable;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.logging.Logger;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolutionException;
import org.junit.jupiter.api.extension.ParameterResolver;
import org.junit.platform.commons.support.AnnotationSupport;

/**
 * The JUnit 5 extension behind {@link InterlaceTest}: starts a {@link TestInterlace} on a fresh temporary data
 * directory for each test (or once per class), injects it into parameters of that type, and stops it and deletes
 * the directory afterwards. A failed test keeps its data directory and says where, so the log and the warehouse can
 * be opened after the fact.
 *
 * <p>Registered in code, it is configured there:
 *
 * <pre>{@code
 * @RegisterExtension
 * static final InterlaceExtension INTERLACE = InterlaceExtension.perClass().flags("--max-pending", "100");
 * }</pre>
 */
public final class InterlaceExtension implements BeforeAllCallback, BeforeEachCallback, AfterEachCallback,
        AfterAllCallback, ParameterResolver {

    private static final Logger LOG = Logger.getLogger(InterlaceExtension.class.getName());
    private static final ExtensionContext.Namespace NAMESPACE = ExtensionContext.Namespace.create(
            InterlaceExtension.class);
    private static final String SERVER = "server";

    /** Null when the settings come from the test class's {@link InterlaceTest}. */
    private final Settings settings;

    /** Used by {@link InterlaceTest}: the settings are the annotation's. */
    public InterlaceExtension() {
        this(null);
    }

    private InterlaceExtension(Settings settings) {
        this.settings = settings;
    }

    /** A fresh server and data directory for every test method. */
    public static InterlaceExtension perTest() {
        return new InterlaceExtension(new Settings(Isolation.PER_TEST, List.of(), List.of()));
    }

    /** One server and data directory for the whole test class (register it in a static field). */
    public static InterlaceExtension perClass() {
        return new InterlaceExtension(new Settings(Isolation.PER_CLASS, List.of(), List.of()));
    }

    /** Adds {@code serve} flags, e.g. {@code flags("--max-pending", "100")}. */
    public InterlaceExtension flags(String... flags) {
        Settings current = settingsOrDefault();
        return new InterlaceExtension(new Settings(current.isolation, concat(current.flags, List.of(flags)),
                current.overrides));
    }

    /** Adds Guice modules replacing bindings of the server's, as {@code Interlace.builder().override} does. */
    public InterlaceExtension overrides(Module... modules) {
        Settings current = settingsOrDefault();
        return new InterlaceExtension(new Settings(current.isolation, current.flags,
                concat(current.overrides, List.of(modules))));
    }

    @Override
    public void beforeAll(ExtensionContext context) {
        if (settings(context).isolation == Isolation.PER_CLASS) {
            start(context);
        }
    }

    @Override
    public void beforeEach(ExtensionContext context) {
        if (settings(context).isolation == Isolation.PER_TEST) {
            start(context);
        }
    }

    @Override
    public void afterEach(ExtensionContext context) {
        if (settings(context).isolation == Isolation.PER_TEST) {
            stop(context);
        }
    }

    @Override
    public void afterAll(ExtensionContext context) {
        if (settings(context).isolation == Isolation.PER_CLASS) {
            stop(context);
        }
    }

    @Override
    public boolean supportsParameter(ParameterContext parameter, ExtensionContext context) {
        return parameter.getParameter().getType() == TestInterlace.class;
    }

    @Override
    public TestInterlace resolveParameter(ParameterContext parameter, ExtensionContext context) {
        Running running = context.getStore(NAMESPACE).get(SERVER, Running.class);
        if (running == null) {
            Executable where = parameter.getDeclaringExecutable();
            throw new ParameterResolutionException("no Interlace server runs for " + where.getName() + ": with "
                    + settings(context).isolation + " a server starts before each test"
                    + (settings(context).isolation == Isolation.PER_TEST
                            ? "; a @BeforeAll method gets one with isolation = Isolation.PER_CLASS" : ""));
        }
        return running.server;
    }

    private void start(ExtensionContext context) {
        Settings current = settings(context);
        Path dataDirectory;
        try {
            dataDirectory = Files.createTempDirectory("interlace-test-");
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create a temporary data directory", e);
        }
        TestInterlace server;
        try {
            server = TestInterlace.start(dataDirectory, current.flags, current.overrides);
        } catch (RuntimeException e) {
            deleteQuietly(dataDirectory);
            throw e;
        }
        context.getStore(NAMESPACE).put(SERVER, new Running(server, dataDirectory));
    }

    private static void stop(ExtensionContext context) {
        Running running = context.getStore(NAMESPACE).remove(SERVER, Running.class);
        if (running == null) {
            return;
        }
        running.server.close();
        if (context.getExecutionException().isPresent()) {
            System.err.println("[interlace-test] " + context.getDisplayName() + " failed; its data directory is kept"
                    + " at " + running.dataDirectory);
        } else {
            deleteQuietly(running.dataDirectory);
        }
    }

    private static void deleteQuietly(Path directory) {
        try {
            TestInterlace.deleteRecursively(directory);
        } catch (IOException e) {
            LOG.warning("cannot delete the test data directory " + directory + ": " + e);
        }
    }

    private Settings settings(ExtensionContext context) {
        if (settings != null) {
            return settings;
        }
        Optional<InterlaceTest> annotation = context.getTestClass()
                .flatMap(type -> AnnotationSupport.findAnnotation(type, InterlaceTest.class));
        return annotation.map(found -> new Settings(found.isolation(), List.of(found.flags()), List.<Module>of()))
                .orElse(new Settings(Isolation.PER_TEST, List.of(), List.of()));
    }

    private Settings settingsOrDefault() {
        return settings != null ? settings : new Settings(Isolation.PER_TEST, List.of(), List.of());
    }

    private static <T> List<T> concat(List<T> first, List<T> second) {
        return java.util.stream.Stream.concat(first.stream(), second.stream()).toList();
    }

    private record Settings(Isolation isolation, List<String> flags, List<Module> overrides) {
        Settings {
            Objects.requireNonNull(isolation, "isolation");
        }
    }

    private record Running(TestInterlace server, Path dataDirectory) {}
}
