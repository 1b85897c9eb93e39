package dev.interlace.processor;

import com.github.javaparser.ast.CompilationUnit;
import com.github.javaparser.ast.Modifier;
import com.github.javaparser.ast.NodeList;
import com.github.javaparser.ast.body.ClassOrInterfaceDeclaration;
import java.util.List;

/** Builds the model registry of a compilation with javaparser, like {@link StreamSources} does for streams. */
final class ModelSources {

    private ModelSources() {}

    static String registry(String packageName, String simpleName, List<ModelStep.ModelDeclaration> models) {
        CompilationUnit unit = StreamSources.unit(packageName);
        unit.addImport("dev.interlace.annotations.Materialise");
        unit.addImport("dev.interlace.runtime.model.ModelDefinition");
        unit.addImport("dev.interlace.runtime.model.ModelRegistry");
        unit.addImport("java.util.List");
        ClassOrInterfaceDeclaration registry = new ClassOrInterfaceDeclaration(
                new NodeList<>(Modifier.publicModifier(), Modifier.finalModifier()), false, simpleName);
        StreamSources.generated(registry);
        registry.setJavadocComment("The models declared with {@code @Model} in this compilation, listed in"
                + " {@code META-INF/services}.");
        registry.addImplementedType("ModelRegistry");
        StringBuilder body = new StringBuilder("{ return List.of(");
        for (int i = 0; i < models.size(); i++) {
            ModelStep.ModelDeclaration model = models.get(i);
            String key = model.uniqueKey() == null ? "null" : StreamSources.literal(model.uniqueKey());
            body.append(i == 0 ? "" : ", ");
            if (model.sql() != null) {
                body.append("ModelDefinition.sql(").append(StreamSources.literal(model.name())).append(", \"main\", ")
                        .append("Materialise.").append(model.materialise()).append(", ").append(key).append(", ")
                        .append(StreamSources.literal(model.sql())).append(", ")
                        .append(StreamSources.literal(model.className())).append(")");
            } else {
                body.append("ModelDefinition.java(").append(StreamSources.literal(model.name())).append(", ")
                        .append("Materialise.").append(model.materialise()).append(", ").append(key)
                        .append(", List.of(");
                for (int j = 0; j < model.dependsOn().size(); j++) {
                    body.append(j == 0 ? "" : ", ").append(StreamSources.literal(model.dependsOn().get(j)));
                }
                body.append("), new ").append(model.className()).append("(), ")
                        .append(StreamSources.literal(model.className())).append(")");
            }
        }
        body.append("); }");
        StreamSources.override(registry, "models", "List<ModelDefinition>", body);
        return StreamSources.print(unit.addType(registry));
    }
}
