package dev.idem.client.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class ProblemTypeTest {

    @Test
    void findsTheTypeInStringsAndBytes() {
        String json = "{ \"title\": \"busy\", \"type\" : \"https:\\/\\/idem.dev\\/problems\\/request-in-progress\" }";
        assertThat(ProblemType.of(json)).contains("https://idem.dev/problems/request-in-progress");
        assertThat(ProblemType.of(json.getBytes(StandardCharsets.UTF_8)))
                .contains("https://idem.dev/problems/request-in-progress");
    }

    @Test
    void ignoresBodiesItCannotRead() {
        assertThat(ProblemType.of(null)).isEmpty();
        assertThat(ProblemType.of(42)).isEmpty();
        assertThat(ProblemType.of("{\"title\":\"no type\"}")).isEmpty();
        assertThat(ProblemType.of(" ".repeat(ProblemType.MAX_SCANNED_CHARS) + "{\"type\":\"x\"}")).isEmpty();
    }
}
