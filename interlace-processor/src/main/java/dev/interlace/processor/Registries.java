package dev.interlace.processor;

import java.io.IOException;
import java.io.Writer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Function;
import javax.annotation.processing.ProcessingEnvironment;
import javax.tools.Diagnostic;
import javax.tools.FileObject;
import javax.tools.JavaFileObject;
import javax.tools.StandardLocation;

/**
 * The registries of one annotation in a compilation: collects what a step generated, writes a registry source for
 * it in the round after (a source written in javac's last round draws a warning), and lists every registry in one
 * {@code META-INF/services} file when processing is over.
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
    private final List<String> registries = new ArrayList<>();

    Registries(ProcessingEnvironment env, String serviceInterface, String baseName, Function<T, String> packageOf,
            Source<T> source) {
        this.env = env;
        this.serviceInterface = serviceInterface;
        this.baseName = baseName;
        this.packageOf = packageOf;
        this.source = source;
    }

    /** Records a generated item under its unique name. */
    void add(String name, T item) {
        unregistered.put(name, item);
    }

    /** Called at the end of each round: a round without new items writes the registry of the earlier ones. */
    void endOfRound(boolean roundHadItems) {
        if (!roundHadItems && !unregistered.isEmpty()) {
            writeRegistry();
        }
    }

    /** Writes what is left and the service file. */
    void finish() {
        if (!unregistered.isEmpty()) {
            writeRegistry();
        }
        if (registries.isEmpty()) {
            return;
        }
        try {
            FileObject services = env.getFiler().createResource(
                    StandardLocation.CLASS_OUTPUT, "", "META-INF/services/" + serviceInterface);
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
        unregistered.clear();
        String packageName = items.stream().map(packageOf).sorted().findFirst().orElse("");
        String simpleName = baseName + (registries.isEmpty() ? "" : registries.size() + 1);
        String registry = (packageName.isEmpty() ? "" : packageName + ".") + simpleName;
        try {
            JavaFileObject file = env.getFiler().createSourceFile(registry);
            try (Writer out = file.openWriter()) {
                out.write(source.generate(packageName, simpleName, items));
            }
            registries.add(registry);
        } catch (IOException e) {
            env.getMessager().printMessage(Diagnostic.Kind.ERROR,
                    "Interlace could not write the registry " + registry + ": " + e.getMessage());
        }
    }
}
