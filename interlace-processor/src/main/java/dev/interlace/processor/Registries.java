package dev.interlace.processor;

import java.io.IOException;
import java.io.Writer;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Function;
import javax.annotation.processing.ProcessingEnvironment;
import javax.lang.model.element.Element;
import javax.tools.Diagnostic;
import javax.tools.FileObject;
import javax.tools.JavaFileObject;
import javax.tools.StandardLocation;

/**
 * The registries of one annotation in a compilation: collects what a step accepted in a round, writes a registry
 * source for it at the end of that round, and lists every registry in one {@code META-INF/services} file when
 * processing is over. Writing in the round itself, not when processing is over, keeps the source out of javac's
 * last round (which draws a warning); a compilation whose items all come in one round, the usual case, gets one
 * registry. Each file names the annotated classes it comes from as its originating elements, so incremental builds
 * know what to regenerate.
 *
 * @param <T> what a registry lists (a stream or model declaration)
 */
final class Registries<T> {

    /** Writes the source of one registry. */
    @FunctionalInterface
    interface Source<T> {
        String generate(String packageName, String simpleName, List<T> items);
    }

    private final ProcessingEnvironment env;
    private final String serviceInterface;
    private final String baseName;
    private final Function<T, String> packageOf;
    private final Source<T> source;
    private final Map<String, T> unregistered = new TreeMap<>();
    private final Map<String, Element> unregisteredOrigins = new TreeMap<>();
    private final List<String> registries = new ArrayList<>();
    private final Set<Element> registeredOrigins = new LinkedHashSet<>();

    Registries(ProcessingEnvironment env, String serviceInterface, String baseName, Function<T, String> packageOf,
            Source<T> source) {
        this.env = env;
        this.serviceInterface = serviceInterface;
        this.baseName = baseName;
        this.packageOf = packageOf;
        this.source = source;
    }

    /** Records a generated item under its unique name, declared by {@code origin}. */
    void add(String name, T item, Element origin) {
        unregistered.put(name, item);
        unregisteredOrigins.put(name, origin);
    }

    /** Called at the end of each round: writes the registry of the items this round accepted. */
    void endOfRound() {
        if (!unregistered.isEmpty()) {
            writeRegistry();
        }
    }

    /** Writes what is left (nothing, when every round ended with {@link #endOfRound}) and the service file. */
    void finish() {
        if (!unregistered.isEmpty()) {
            writeRegistry();
        }
        if (registries.isEmpty()) {
            return;
        }
        try {
            FileObject services = env.getFiler().createResource(
                    StandardLocation.CLASS_OUTPUT, "", "META-INF/services/" + serviceInterface,
                    registeredOrigins.toArray(Element[]::new));
            try (Writer out = services.openWriter()) {
                for (String registry : registries) {
                    out.write(registry + "\n");
                }
            }
        } catch (IOException e) {
            env.getMessager().printMessage(Diagnostic.Kind.ERROR,
                    "Interlace could not write META-INF/services/" + serviceInterface + ": " + e.getMessage());
        }
    }

    /** One registry for the items generated since the last one (normally all of them, once). */
    private void writeRegistry() {
        List<T> items = new ArrayList<>(unregistered.values());
        Element[] origins = unregisteredOrigins.values().toArray(Element[]::new);
        unregistered.clear();
        unregisteredOrigins.clear();
        String packageName = items.stream().map(packageOf).sorted().findFirst().orElse("");
        String simpleName = baseName + (registries.isEmpty() ? "" : registries.size() + 1);
        String registry = (packageName.isEmpty() ? "" : packageName + ".") + simpleName;
        try {
            JavaFileObject file = env.getFiler().createSourceFile(registry, origins);
            try (Writer out = file.openWriter()) {
                out.write(source.generate(packageName, simpleName, items));
            }
            registries.add(registry);
            registeredOrigins.addAll(List.of(origins));
        } catch (IOException e) {
            env.getMessager().printMessage(Diagnostic.Kind.ERROR,
                    "Interlace could not write the registry " + registry + ": " + e.getMessage());
        }
    }
}
