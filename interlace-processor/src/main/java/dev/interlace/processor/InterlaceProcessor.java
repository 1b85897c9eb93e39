package dev.interlace.processor;

import com.google.auto.service.AutoService;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import javax.annotation.processing.AbstractProcessor;
import javax.annotation.processing.ProcessingEnvironment;
import javax.annotation.processing.Processor;
import javax.annotation.processing.RoundEnvironment;
import javax.lang.model.SourceVersion;
import javax.lang.model.element.TypeElement;
import javax.lang.model.util.ElementFilter;

/**
 * Entry point of the Interlace annotation processor: hands each annotation to its {@link ProcessingStep}, keeps
 * what a step defers for the next round and lets the steps report it only when processing is over. It never claims
 * the annotations, so other processors still see them.
 */
@AutoService(Processor.class)
public final class InterlaceProcessor extends AbstractProcessor {

    private List<ProcessingStep> steps;
    /**
     * Elements each step deferred, by qualified name: element objects are not reused across rounds, a later round
     * looks them up again.
     */
    private final Map<ProcessingStep, Set<String>> deferred = new HashMap<>();

    @Override
    public synchronized void init(ProcessingEnvironment processingEnv) {
        super.init(processingEnv);
        KnownStreams streams = new KnownStreams(processingEnv);
        steps = List.of(new StreamStep(processingEnv, streams), new ModelStep(processingEnv, streams));
    }

    @Override
    public Set<String> getSupportedAnnotationTypes() {
        return new LinkedHashSet<>(List.of(StreamStep.ANNOTATION, ModelStep.ANNOTATION));
    }

    @Override
    public SourceVersion getSupportedSourceVersion() {
        return SourceVersion.latestSupported();
    }

    @Override
    public boolean process(Set<? extends TypeElement> annotations, RoundEnvironment round) {
        boolean lastRound = round.processingOver();
        for (ProcessingStep step : steps) {
            Set<TypeElement> elements = deferredElements(step);
            TypeElement annotation = processingEnv.getElementUtils().getTypeElement(step.annotation());
            if (annotation != null) {
                elements.addAll(ElementFilter.typesIn(round.getElementsAnnotatedWith(annotation)));
            }
            Set<String> stillDeferred = new TreeSet<>();
            for (TypeElement element : step.process(elements, lastRound)) {
                stillDeferred.add(element.getQualifiedName().toString());
            }
            deferred.put(step, stillDeferred);
        }
        if (lastRound) {
            steps.forEach(ProcessingStep::finish);
        }
        return false;
    }

    private Set<TypeElement> deferredElements(ProcessingStep step) {
        Set<TypeElement> elements = new LinkedHashSet<>();
        for (String name : deferred.getOrDefault(step, Set.of())) {
            TypeElement element = processingEnv.getElementUtils().getTypeElement(name);
            if (element != null) {
                elements.add(element);
            }
        }
        return elements;
    }
}
