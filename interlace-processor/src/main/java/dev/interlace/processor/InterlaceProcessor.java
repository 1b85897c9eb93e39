package dev.interlace.processor;

import com.google.auto.service.AutoService;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import javax.annotation.processing.AbstractProcessor;
import javax.annotation.processing.Processor;
import javax.annotation.processing.RoundEnvironment;
import javax.lang.model.SourceVersion;
import javax.lang.model.element.TypeElement;

/**
 * Entry point of the Interlace annotation processor: hands each annotation to its {@link ProcessingStep} and never
 * claims the annotations, so other processors still see them.
 */
@AutoService(Processor.class)
public final class InterlaceProcessor extends AbstractProcessor {

    private List<ProcessingStep> steps;

    @Override
    public synchronized void init(javax.annotation.processing.ProcessingEnvironment processingEnv) {
        super.init(processingEnv);
        StreamStep streams = new StreamStep(processingEnv);
        steps = List.of(streams, new ModelStep(processingEnv, streams));
    }

    @Override
    public Set<String> getSupportedAnnotationTypes() {
        Set<String> names = new LinkedHashSet<>();
        for (ProcessingStep step : steps()) {
            names.add(step.annotation());
        }
        return names;
    }

    @Override
    public SourceVersion getSupportedSourceVersion() {
        return SourceVersion.latestSupported();
    }

    @Override
    public boolean process(Set<? extends TypeElement> annotations, RoundEnvironment round) {
        for (ProcessingStep step : steps) {
            TypeElement annotation = processingEnv.getElementUtils().getTypeElement(step.annotation());
            if (annotation != null) {
                step.process(round.getElementsAnnotatedWith(annotation));
            }
            if (round.processingOver()) {
                step.finish();
            }
        }
        return false;
    }

    private List<ProcessingStep> steps() {
        // getSupportedAnnotationTypes may be called before init
        return steps != null ? steps : List.of(new StreamStep(null), new ModelStep(null, null));
    }
}
