package dev.idem.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.core.JsonFactory;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The depth benchmark's documents have the stated size and depth and canonicalize to the same value. */
class CanonicalDepthBenchmarkTest {

    @ParameterizedTest
    @ValueSource(ints = {1, 10, 100, 500, 990})
    void theDocumentHasTheStatedSizeAndDepth(int depth) throws Exception {
        CanonicalDepthBenchmark b = new CanonicalDepthBenchmark();
        b.depth = depth;
        b.size = 900_000;
        b.setUp();
        assertThat(b.documentBytes()).isBetween(880_000, 960_000);
        ObjectMapper mapper = new ObjectMapper(JsonFactory.builder()
                .streamReadConstraints(StreamReadConstraints.builder().maxNestingDepth(2000).build()).build());
        byte[] canonical = b.canonicalize();
        JsonNode node = mapper.readTree(canonical);
        assertThat(node).isEqualTo(mapper.readTree(Documents.nested(900_000, depth)));
        int levels = 0;
        for (JsonNode n = node; n.isObject(); n = n.get("next")) {
            levels++;
        }
        assertThat(levels).isEqualTo(depth);
    }
}
