package dev.interlace.processor;

import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import javax.annotation.processing.ProcessingEnvironment;
import javax.lang.model.element.AnnotationMirror;
import javax.lang.model.element.AnnotationValue;
import javax.lang.model.element.ExecutableElement;
import javax.lang.model.element.Modifier;
import javax.lang.model.element.TypeElement;
import javax.lang.model.type.TypeMirror;
import javax.lang.model.util.ElementFilter;
import javax.tools.FileObject;
import javax.tools.StandardLocation;

/**
 * Validates every {@code @Model} and writes the compilation's model registry: name, kind (SQL or a {@code JavaModel}
 * class), {@code dependsOn} of Java models checked against the streams in {@link KnownStreams} (this compilation's and
 * those of jars on the class path) and the models this compilation knows.
 *
 * <p>A model whose only problem may be something a later round still generates (a dependency not known yet) is
 * deferred; if it is still unknown when processing is over, its report is printed then.
 */
final class ModelStep extends DeclarationStep<ModelStep.ModelDeclaration> {

    static final String ANNOTATION = "dev.interlace.annotations.Model";
    static final String JAVA_MODEL = "dev.interlace.runtime.model.JavaModel";
    static final String REGISTRY_INTERFACE = "dev.interlace.runtime.model.ModelRegistry";
    static final String REGISTRY_NAME = "InterlaceModelRegistry";

    /** A valid model, as the registry needs it. */
    record ModelDeclaration(String packageName, String name, String materialise, String uniqueKey, String sql,
            List<String> dependsOn, String className) {}

    /** Models of this compilation by name, valid or not, and the class declaring each (the first one wins). */
    private final Map<String, String> declaredNames = new HashMap<>();

    ModelStep(ProcessingEnvironment env, KnownStreams streams) {
        super(env, streams, new Registries<>(env, REGISTRY_INTERFACE, REGISTRY_NAME, ModelDeclaration::packageName,
                ModelSources::registry));
    }

    @Override
    public String annotation() {
        return ANNOTATION;
    }

    /** Learns every model name of the round first, so that models may depend on each other in any order. */
    @Override
    public Set<TypeElement> process(Set<TypeElement> elements, boolean lastRound) {
        for (TypeElement type : elements) {
            String name = Annotations.string(values(Annotations.mirror(type, ANNOTATION)).get("name"));
            declaredNames.putIfAbsent(name, type.getQualifiedName().toString());
        }
        return super.process(elements, lastRound);
    }

    /** Adds the model to the registry, which is written when processing is over. */
    @Override
    void accept(TypeElement type, ModelDeclaration model) {
        registry.add(model.name(), model, type);
    }

    @Override
    Optional<ModelDeclaration> validate(TypeElement type, AnnotationMirror mirror, Report report) {
        Map<String, AnnotationValue> values = values(mirror);
        String name = Annotations.string(values.get("name"));
        if (!Names.isValid(name)) {
            report.error(DiagnosticId.MODEL_NAME, values.get("name"), "model name \"" + name + "\" is not valid: use"
                    + " lower-case letters, digits and _, starting with a letter (" + Names.RULE + ")");
        } else if (!declaredNames.get(name).equals(type.getQualifiedName().toString())) {
            report.error(DiagnosticId.DUPLICATE_MODEL, values.get("name"), "model \"" + name + "\" is already"
                    + " declared by " + declaredNames.get(name) + "; rename one of them");
        } else if (sqlModelExists(name)) {
            report.error(DiagnosticId.DUPLICATE_MODEL, values.get("name"), "model \"" + name + "\" is also the SQL"
                    + " file models/" + name + ".sql; rename one of them");
        }
        String sql = Annotations.string(values.get("sql"));
        boolean isJava = implementsJavaModel(type);
        String materialise = Annotations.enumConstant(values.get("materialise"));
        List<? extends AnnotationValue> dependsOnValues = Annotations.list(values.get("dependsOn"));
        List<String> dependsOn = new ArrayList<>();
        dependsOnValues.forEach(value -> dependsOn.add(Annotations.string(value)));
        if (sql.isBlank() && !isJava) {
            report.error(DiagnosticId.MODEL_KIND, null, "model \"" + name + "\" has no SQL and "
                    + type.getSimpleName() + " does not implement " + JAVA_MODEL + "; give sql = \"SELECT ...\" or"
                    + " implement JavaModel");
        } else if (!sql.isBlank() && isJava) {
            report.error(DiagnosticId.MODEL_KIND, values.get("sql"), "model \"" + name + "\" has SQL and also"
                    + " implements JavaModel; keep one of them");
        } else if (isJava) {
            if (materialise.equals("VIEW")) {
                report.error(DiagnosticId.MODEL_KIND, values.get("materialise"), "a Java model cannot be a view;"
                        + " use Materialise.TABLE or Materialise.INCREMENTAL");
            }
            if (type.getModifiers().contains(Modifier.ABSTRACT) || !hasPublicNoArgConstructor(type)) {
                report.error(DiagnosticId.MODEL_KIND, null, type.getSimpleName() + " must be a concrete class with"
                        + " a public no-argument constructor, so the runtime can create it");
            }
            if (dependsOn.isEmpty()) {
                report.error(DiagnosticId.MODEL_DEPENDS_ON, values.get("dependsOn"), "Java model \"" + name
                        + "\" must say what it reads: dependsOn = {\"streams.orders\", \"other_model\"}");
            }
            for (AnnotationValue value : dependsOnValues) {
                String input = Annotations.string(value);
                if (!known(input)) {
                    report.unresolved(DiagnosticId.MODEL_DEPENDS_ON, value, "model \"" + name + "\" depends on \""
                            + input + "\", which is neither a stream of this compilation (streams.<name>; declared: "
                            + String.join(", ", streams.declaredHere()) + ") nor of a jar on the class path (built"
                            + " with this processor, which lists its streams in " + KnownStreams.INDEX + ") nor a"
                            + " model (an @Model class or a models/<name>.sql file)");
                }
            }
        } else if (!dependsOn.isEmpty()) {
            report.error(DiagnosticId.MODEL_DEPENDS_ON, values.get("dependsOn"), "a SQL model's dependencies come"
                    + " from its SQL; remove dependsOn");
        }
        String uniqueKey = Annotations.string(values.get("uniqueKey"));
        if (!uniqueKey.isEmpty() && !materialise.equals("INCREMENTAL")) {
            report.error(DiagnosticId.MODEL_KEY, values.get("uniqueKey"), "uniqueKey only applies to incremental"
                    + " models; remove it or use Materialise.INCREMENTAL");
        }
        String packageName = Annotations.packageOf(env.getElementUtils(), type);
        return Optional.of(new ModelDeclaration(packageName, name, materialise, uniqueKey.isEmpty() ? null : uniqueKey,
                sql.isBlank() ? null : sql, dependsOn, type.getQualifiedName().toString()));
    }

    private boolean known(String input) {
        if (input.startsWith("streams.")) {
            return streams.isKnown(input.substring("streams.".length()));
        }
        String model = input.startsWith("main.") ? input.substring("main.".length()) : input;
        return declaredNames.containsKey(model) || sqlModelExists(model);
    }

    /** Whether {@code models/<name>.sql} is among this compilation's resources (copied before compiling). */
    private boolean sqlModelExists(String name) {
        try {
            FileObject file = env.getFiler().getResource(StandardLocation.CLASS_OUTPUT, "", "models/" + name + ".sql");
            try (var in = file.openInputStream()) {
                return true;
            }
        } catch (IOException | IllegalArgumentException e) {
            return false;
        }
    }

    private boolean implementsJavaModel(TypeElement type) {
        TypeElement javaModel = env.getElementUtils().getTypeElement(JAVA_MODEL);
        if (javaModel == null) {
            return false;
        }
        TypeMirror erased = env.getTypeUtils().erasure(javaModel.asType());
        return env.getTypeUtils().isAssignable(type.asType(), erased);
    }

    private static boolean hasPublicNoArgConstructor(TypeElement type) {
        for (ExecutableElement constructor : ElementFilter.constructorsIn(type.getEnclosedElements())) {
            if (constructor.getParameters().isEmpty() && constructor.getModifiers().contains(Modifier.PUBLIC)) {
                return true;
            }
        }
        return false;
    }

    private Map<String, AnnotationValue> values(AnnotationMirror mirror) {
        return Annotations.values(env.getElementUtils(), mirror);
    }
}
