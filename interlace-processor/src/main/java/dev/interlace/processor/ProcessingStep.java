package dev.interlace.processor;

import java.util.Set;
import javax.lang.model.element.Element;

/** The work the processor does for one annotation, round after round. */
interface ProcessingStep {

    /** The fully qualified name of the annotation this step handles. */
    String annotation();

    /** Validates and generates for the elements annotated in this round. */
    void process(Set<? extends Element> elements);

    /** Called once when processing is over: writes what spans the whole compilation. */
    void finish();
}
