package dev.idem.engine.internal.json;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.StringJoiner;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/**
 * RFC 6901 pointers as exclusions: an array index token is a decimal without sign or leading
 * zero and names exactly that element (token {@code 0} is not element 10); {@code ~0} and
 * {@code ~1} stand for {@code ~} and {@code /} wherever they are in a token, the first
 * character included; a token that no JSON name can equal (a lone surrogate) excludes nothing.
 */
class PointerSetTest {

    private static String canonical(String json, List<String> pointers) {
        return new String(JsonCanonicalizer.canonicalize(json, PointerSet.of(pointers)), StandardCharsets.UTF_8);
    }

    @Test
    void anIndexPointerNamesExactlyItsElement() {
        Random random = new Random(6901);
        List<String> notIndexes = List.of("/01", "/00", "/-1", "/+1", "/1a", "/ 1", "/1.0", "/", "/:", "/0x1", "/1/", "/10/0");
        for (int round = 0; round < 300; round++) {
            int size = random.nextInt(130);
            TreeSet<Integer> excluded = new TreeSet<>();
            List<String> pointers = new ArrayList<>();
            for (int i = random.nextInt(6); i > 0; i--) {
                int index = random.nextInt(size + 5);
                pointers.add("/" + index);
                if (index < size) {
                    excluded.add(index);
                }
            }
            pointers.add(notIndexes.get(random.nextInt(notIndexes.size())));
            StringJoiner input = new StringJoiner(",", "[", "]");
            StringJoiner expected = new StringJoiner(",", "[", "]");
            for (int i = 0; i < size; i++) {
                input.add(Integer.toString(i));
                if (!excluded.contains(i)) {
                    expected.add(Integer.toString(i));
                }
            }
            assertThat(canonical(input.toString(), pointers)).as("%s", pointers).isEqualTo(expected.toString());
        }
    }

    @Test
    void indexesOfEveryLengthAndDigit() {
        String eleven = "[0,1,2,3,4,5,6,7,8,9,10]";
        assertThat(canonical(eleven, List.of("/0"))).isEqualTo("[1,2,3,4,5,6,7,8,9,10]");
        assertThat(canonical(eleven, List.of("/1"))).isEqualTo("[0,2,3,4,5,6,7,8,9,10]");
        assertThat(canonical(eleven, List.of("/9"))).isEqualTo("[0,1,2,3,4,5,6,7,8,10]");
        assertThat(canonical(eleven, List.of("/10"))).isEqualTo("[0,1,2,3,4,5,6,7,8,9]");
        assertThat(canonical(eleven, List.of("/01", "/010", "/"))).isEqualTo(eleven);
        assertThat(canonical("{\"a\":[[0,1],{\"0\":1,\"1\":2}]}", List.of("/a/0/1", "/a/1/0")))
                .isEqualTo("{\"a\":[[0],{\"1\":2}]}");
    }

    @Test
    void escapedTokensNameTheirMembersWhereverTheEscapeStands() {
        String json = "{\"~a\":1,\"/\":2,\"a/b~\":3,\"~\":4,\"\":5,\"~0\":6,\"x\":7}";
        assertThat(canonical(json, List.of("/~0a"))).isEqualTo("{\"\":5,\"/\":2,\"a/b~\":3,\"x\":7,\"~\":4,\"~0\":6}");
        assertThat(canonical(json, List.of("/~1"))).isEqualTo("{\"\":5,\"a/b~\":3,\"x\":7,\"~\":4,\"~0\":6,\"~a\":1}");
        assertThat(canonical(json, List.of("/a~1b~0"))).isEqualTo("{\"\":5,\"/\":2,\"x\":7,\"~\":4,\"~0\":6,\"~a\":1}");
        assertThat(canonical(json, List.of("/~0"))).isEqualTo("{\"\":5,\"/\":2,\"a/b~\":3,\"x\":7,\"~0\":6,\"~a\":1}");
        assertThat(canonical(json, List.of("/~00"))).isEqualTo("{\"\":5,\"/\":2,\"a/b~\":3,\"x\":7,\"~\":4,\"~a\":1}");
        assertThat(canonical(json, List.of("/"))).isEqualTo("{\"/\":2,\"a/b~\":3,\"x\":7,\"~\":4,\"~0\":6,\"~a\":1}");
    }

    @Test
    void aTokenNoNameCanEqualExcludesNothing() {
        String json = "{\"\":1,\"a\":2,\"\\ud83d\\ude00\":3}";
        for (String pointer : List.of("/\ud800", "/\udc00", "/\ud83d", "/a\ud800")) {
            assertThat(canonical(json, List.of(pointer))).as(pointer).isEqualTo("{\"\":1,\"a\":2,\"\ud83d\ude00\":3}");
        }
        assertThat(canonical(json, List.of("/\ud83d\ude00"))).isEqualTo("{\"\":1,\"a\":2}");
    }
}
