package dev.interlace.processor;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import javax.annotation.processing.ProcessingEnvironment;
import javax.tools.FileObject;
import javax.tools.StandardLocation;

/**
 * The streams a model may depend on: those declared in this compilation and those of jars on the class path.
 *
 * <p>The processor owns it and hands it to the steps, so the model step learns about streams without a reference
 * to the stream step. A stream of another jar is found through the index entry its processor wrote next to the
 * registry, {@code META-INF/interlace/streams/<name>}, holding the qualified name of the stream's descriptor class:
 * javac's filer finds one resource per name on the class path, so a file per stream is found in whichever jar holds
 * it, where the jars' {@code META-INF/services} files (one name for all of them) would show only the first. The
 * entry is trusted only if its descriptor class is on the class path too.
 */
final class KnownStreams {

    static final String INDEX = "META-INF/interlace/streams/";

    private final ProcessingEnvironment env;
    /** Streams of this compilation by name, valid or not, and the class declaring each. */
    private final Map<String, String> declaredHere = new TreeMap<>();

    KnownStreams(ProcessingEnvironment env) {
        this.env = env;
    }

    /** Records that {@code declaredBy} declares {@code name}; returns the class that declared it first, if another. */
    Optional<String> declare(String name, String declaredBy) {
        String first = declaredHere.putIfAbsent(name, declaredBy);
        return first == null || first.equals(declaredBy) ? Optional.empty() : Optional.of(first);
    }

    /** The names of the streams declared so far in this compilation, sorted. */
    Set<String> declaredHere() {
        return declaredHere.keySet();
    }

    /** Whether a stream of this name is declared here or by a jar on the class path. */
    boolean isKnown(String name) {
        return declaredHere.containsKey(name) || onClassPath(name);
    }

    /** The path of the index entry for stream {@code name}. */
    static String indexEntry(String name) {
        return INDEX + name;
    }

    private boolean onClassPath(String name) {
        if (!Names.isValid(name)) {
            return false;
        }
        try {
            FileObject entry = env.getFiler().getResource(StandardLocation.CLASS_PATH, "", indexEntry(name));
            String descriptor;
            try (InputStream in = entry.openInputStream()) {
                descriptor = new String(in.readAllBytes(), StandardCharsets.UTF_8).strip();
            }
            return !descriptor.isEmpty() && env.getElementUtils().getTypeElement(descriptor) != null;
        } catch (IOException | IllegalArgumentException e) {
            return false;
        }
    }
}
