package dev.interlace.processor;

import java.util.LinkedHashSet;
import java.util.Optional;
import java.util.Set;
import javax.annotation.processing.ProcessingEnvironment;
import javax.lang.model.element.AnnotationMirror;
import javax.lang.model.element.TypeElement;

/**
 * The shared base of the steps whose annotation declares one entry of the compilation's registry (a stream, a model):
 * each annotated type is validated into a {@link Report} printed once, a valid declaration is handed to
 * {@link #accept}, and a type whose report waits for something a later round may still generate is deferred (until
 * the last round, which reports it). What differs per annotation is what is validated and what is generated.
 *
 * @param <D> the declaration the registry lists
 */
abstract class DeclarationStep<D> implements ProcessingStep {

    final ProcessingEnvironment env;
    final KnownStreams streams;
    final Registries<D> registry;

    DeclarationStep(ProcessingEnvironment env, KnownStreams streams, Registries<D> registry) {
        this.env = env;
        this.streams = streams;
        this.registry = registry;
    }

    @Override
    public Set<TypeElement> process(Set<TypeElement> elements, boolean lastRound) {
        Set<TypeElement> deferred = new LinkedHashSet<>();
        for (TypeElement type : elements) {
            AnnotationMirror mirror = Annotations.mirror(type, annotation());
            Report report = new Report(type, mirror);
            Optional<D> declaration = validate(type, mirror, report);
            if (report.hasUnresolved() && !lastRound) {
                deferred.add(type);
                continue;
            }
            report.print(env.getMessager());
            if (declaration.isPresent() && report.isClean()) {
                accept(type, declaration.get());
            }
        }
        registry.endOfRound();
        return deferred;
    }

    @Override
    public void finish() {
        registry.finish();
    }

    /** Checks the annotation of {@code type} into {@code report}; the declaration, used only if the report is clean. */
    abstract Optional<D> validate(TypeElement type, AnnotationMirror mirror, Report report);

    /** Takes a valid declaration: adds it to the registry and writes what it generates now. */
    abstract void accept(TypeElement type, D declaration);
}
