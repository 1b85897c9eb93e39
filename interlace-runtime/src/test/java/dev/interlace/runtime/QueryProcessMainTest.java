package dev.interlace.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import dev.interlace.runtime.queryprocess.QueryProcess;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import org.junit.jupiter.api.Test;

class QueryProcessMainTest {

    /** The query process is started by the main class's name: a rename or a move must change the name too. */
    @Test
    void theNameTheServerStartsIsTheChildsMainClass() throws Exception {
        Class<?> main = Class.forName(QueryProcess.MAIN);
        assertThat(main).isEqualTo(QueryProcessMain.class);
        Method entry = main.getMethod("main", String[].class);
        assertThat(Modifier.isStatic(entry.getModifiers())).isTrue();
    }
}
