package dev.idem.engine.protection;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Arrays;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * What configuration may hand {@link KeyVersion} and {@link KeyRing}, at the edges of their
 * documented contracts: secrets of exactly 16 and 64 bytes and ids of exactly 64 characters are
 * taken, every character class an id may hold is taken and its neighbours refused (the error
 * names the index), URL-safe Base64 is recognised wherever its one marker character stands,
 * and a ring keeps its keys in the order given and picks the only key when no current one is
 * named.
 */
class KeyVersionAndRingTest {
    private static final byte[] SECRET = filled(32, 5);

    private static byte[] filled(int n, int value) {
        byte[] b = new byte[n];
        Arrays.fill(b, (byte) value);
        return b;
    }

    @Test
    void secretsOfTheSmallestAndLargestSizeAreTakenAndSaySo() {
        assertThat(KeyVersion.of("k", filled(16, 1))).hasToString("KeyVersion[k, 128 bits]");
        assertThat(KeyVersion.of("k", filled(64, 1))).hasToString("KeyVersion[k, 512 bits]");
        assertThat(KeyVersion.of("k", filled(16, 1)).secretKey().getEncoded()).isEqualTo(filled(16, 1));
        assertThatThrownBy(() -> KeyVersion.of("k", null)).isInstanceOf(NullPointerException.class);
    }

    @Test
    void idsTakeEveryAllowedCharacterAndRefuseTheirNeighbours() {
        String all = "azAZ09._:-";
        assertThat(KeyVersion.checkId(all)).isEqualTo(all);
        assertThat(KeyVersion.checkId("x".repeat(64))).hasSize(64);
        assertThat(KeyVersion.of("x".repeat(64), SECRET).id()).hasSize(64);
        for (char c : new char[] {'`', '{', '@', '[', '/', ' ', ',', 'é'}) {
            assertThatThrownBy(() -> KeyVersion.checkId("ab" + c))
                    .as("%s", c).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("at index 2");
        }
        assertThatThrownBy(() -> KeyVersion.checkId("x".repeat(65))).hasMessageContaining("was 65");
        assertThatThrownBy(() -> KeyVersion.checkId(null)).isInstanceOf(NullPointerException.class);
    }

    @Test
    void urlSafeBase64IsRecognisedWhereverItsMarkerStands() {
        byte[] minus = filled(16, 0x41);
        minus[0] = (byte) 0xF8;
        byte[] underscore = minus.clone();
        underscore[0] = (byte) 0xFC;
        String minusText = Base64.getUrlEncoder().withoutPadding().encodeToString(minus);
        String underscoreText = Base64.getUrlEncoder().withoutPadding().encodeToString(underscore);
        assertThat(minusText).startsWith("-").doesNotContain("_");
        assertThat(underscoreText).startsWith("_").doesNotContain("-");
        assertThat(KeyVersion.fromBase64("m", minusText).secretKey().getEncoded()).isEqualTo(minus);
        assertThat(KeyVersion.fromBase64("u", underscoreText).secretKey().getEncoded()).isEqualTo(underscore);
        // The standard alphabet, padded, with the blank a configuration file leaves around it.
        String standard = Base64.getEncoder().encodeToString(minus);
        assertThat(standard).startsWith("+");
        assertThat(KeyVersion.fromBase64("s", " " + standard + "\n").secretKey().getEncoded()).isEqualTo(minus);
        assertThatThrownBy(() -> KeyVersion.fromBase64("bad", "not*base64"))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("key 'bad' is not valid Base64")
                .hasNoCause();
        assertThatThrownBy(() -> KeyVersion.fromBase64("b d", "not*base64")).hasMessageContaining("'b d'");
    }

    @Test
    void aRingKeepsItsOrderAndTakesItsOnlyKeyWhenNoneIsNamed() {
        String b64 = Base64.getEncoder().encodeToString(SECRET);
        Map<String, String> config = new LinkedHashMap<>();
        config.put("2026-06", b64);
        config.put("2026-01", Base64.getEncoder().encodeToString(filled(32, 6)));
        config.put("2025-09", Base64.getEncoder().encodeToString(filled(32, 7)));
        KeyRing ring = KeyRing.fromBase64(config, "2026-01");
        assertThat(ring.ids()).containsExactly("2026-06", "2026-01", "2025-09");
        assertThat(ring.current().id()).isEqualTo("2026-01");
        assertThat(ring.find("2025-09").secretKey().getEncoded()).isEqualTo(filled(32, 7));

        for (String unnamed : new String[] {null, "", "  "}) {
            KeyRing one = KeyRing.fromBase64(Map.of("only", b64), unnamed);
            assertThat(one.current().id()).isEqualTo("only");
            assertThat(one.ids()).containsExactly("only");
        }
        KeyRing coded = KeyRing.of(KeyVersion.of("b", SECRET), KeyVersion.of("a", SECRET));
        assertThat(coded.ids()).containsExactly("b", "a");
        assertThat(coded.find("a").id()).isEqualTo("a");
        Map<String, String> missing = new LinkedHashMap<>();
        missing.put("k", null);
        assertThatThrownBy(() -> KeyRing.fromBase64(missing, "k")).isInstanceOf(NullPointerException.class)
                .hasMessage("k");
        assertThatThrownBy(() -> KeyRing.fromBase64(Map.of("k", b64), "other"))
                .hasMessageContaining("'other' is not among the keys given (k)");
    }
}
