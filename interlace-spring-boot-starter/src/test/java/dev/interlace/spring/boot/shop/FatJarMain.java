package dev.interlace.spring.boot.shop;

import dev.interlace.runtime.model.ModelDefinition;
import dev.interlace.spring.boot.InterlaceServer;
import java.util.List;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.WebApplicationType;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * The start class of the executable jar {@code FatJarTest} builds: starts {@link ShopApplication}, prints the models
 * the Interlace server runs and stops.
 */
public final class FatJarMain {

    private FatJarMain() {}

    public static void main(String[] args) {
        SpringApplication application = new SpringApplication(ShopApplication.class);
        application.setWebApplicationType(WebApplicationType.NONE);
        try (ConfigurableApplicationContext context = application.run(args)) {
            List<String> models = context.getBean(InterlaceServer.class).interlace().models()
                    .map(runner -> runner.graph().inOrder().stream().map(ModelDefinition::name).sorted().toList())
                    .orElse(List.of());
            System.out.println("models: " + models);
        }
    }
}
